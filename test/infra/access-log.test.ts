import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { flatTemplate } from '../support/flat-template.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HandoffStack } from '../../lib/handoff-stack.ts';

/**
 * The API stage's access log: which fields it writes, and that none of them can hold a link
 * token, an inbound URL secret or anything else a caller sends. The default stack (no custom
 * domain) also keeps its execute-api endpoint. One synth, bundling skipped.
 */

let outdir: string;
let template: Template;

beforeAll(() => {
  outdir = mkdtempSync(path.join(tmpdir(), 'handoff-access-log-'));
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], emailFrom: 'handoff@test.example' } });
  template = flatTemplate(new HandoffStack(app, 'AccessLog'));
}, 180_000);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

const stageFormat = () => {
  const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
  expect(stages).toHaveLength(1);
  return stages[0]!.Properties.AccessLogSettings.Format as string;
};

describe('the access log', () => {
  it('writes exactly these fields: the route key (the template) in place of the path', () => {
    expect(JSON.parse(stageFormat())).toEqual({
      requestId: '$context.requestId',
      requestTime: '$context.requestTime',
      sourceIp: '$context.identity.sourceIp',
      httpMethod: '$context.httpMethod',
      routeKey: '$context.routeKey',
      status: '$context.status',
      responseLength: '$context.responseLength',
      responseLatency: '$context.responseLatency',
      integrationLatency: '$context.integrationLatency',
      integrationStatus: '$context.integrationStatus',
      error: '$context.error.message',
    });
  });

  it('names no variable that can carry a path, a query, a header, a body or an error text from a function', () => {
    const variables = stageFormat().match(/\$context\.[A-Za-z.]+/g) ?? [];
    expect(variables.length).toBe(11);
    for (const variable of variables) {
      // The path and its parts (/r/<token>, /inbound/.../<secret>), the query string, overridden
      // requests, authorizer output and headers, and the integration's error message (a function's error text).
      expect(variable, variable).not.toMatch(/path|querystring|query|requestOverride|responseOverride|authorizer|header|integrationErrorMessage|integration\.error|domainPrefix/i);
    }
    expect(stageFormat()).not.toMatch(/\$input|\$stageVariables|\$util/);
  });

  it('is kept at least a year (13 months), so it outlasts a yearly audit or an incident found late', () => {
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    const [groupId] = stage.Properties.AccessLogSettings.DestinationArn['Fn::GetAtt'];
    const group = template.toJSON().Resources[groupId];
    expect(group.Type).toBe('AWS::Logs::LogGroup');
    expect(group.Properties.RetentionInDays).toBeGreaterThanOrEqual(365);
    expect(group.Properties.RetentionInDays).toBe(400);
  });

  it('keeps the execute-api endpoint when no custom domain is set, and uses it for the links', () => {
    const api = Object.values(template.findResources('AWS::ApiGatewayV2::Api'))[0]!;
    expect(api.Properties.DisableExecuteApiEndpoint ?? false).toBe(false);
    expect(template.findResources('AWS::ApiGatewayV2::DomainName')).toEqual({});
    expect(template.findResources('AWS::ApiGatewayV2::ApiMapping')).toEqual({});
    expect(Object.keys(template.findOutputs('*'))).not.toContain('ApiDomainTarget');
    const functions = Object.values(template.findResources('AWS::Lambda::Function')).filter((fn) => fn.Properties.Environment?.Variables?.BASE_URL);
    expect(functions.length).toBeGreaterThan(0);
    const [apiId] = Object.keys(template.findResources('AWS::ApiGatewayV2::Api'));
    for (const fn of functions) {
      expect(fn.Properties.Environment.Variables.BASE_URL).toEqual({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [apiId, 'ApiEndpoint'] }, '/v1']] });
    }
  });
});
