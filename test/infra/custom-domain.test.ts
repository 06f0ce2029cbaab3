import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { flatTemplate } from '../support/flat-template.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HandoffStack } from '../../lib/handoff-stack.ts';

/**
 * The optional custom domain, by context (`-c domainName=... -c certificateArn=...`): the domain
 * with its ACM certificate, mapped to the `$default` stage, the execute-api endpoint off, the
 * links on the domain, and the DNS target as an output. Half a setting fails the synth. One full
 * synth (bundling skipped); the refusals fail before anything is built.
 */

const DOMAIN = 'api.handoff.example';
const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/12345678-1234-1234-1234-123456789012';
const ENV = { account: '123456789012', region: 'eu-west-1' };

const context = (extra: Record<string, unknown>) => ({ 'aws:cdk:bundling-stacks': [], emailFrom: 'handoff@test.example', ...extra });
const dirs: string[] = [];
const newApp = (extra: Record<string, unknown>) => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'handoff-domain-'));
  dirs.push(outdir);
  return new App({ outdir, context: context(extra) });
};

let template: Template;
let resources: Record<string, any>;

beforeAll(() => {
  const app = newApp({ domainName: DOMAIN, certificateArn: CERTIFICATE });
  template = flatTemplate(new HandoffStack(app, 'WithDomain', { env: ENV }));
  resources = template.toJSON().Resources;
}, 180_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const onlyOf = (type: string) => {
  const found = Object.entries(resources).filter(([, r]) => r.Type === type);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};

describe('a custom domain', () => {
  it('is a regional API Gateway domain with the given ACM certificate, mapped to the $default stage', () => {
    const [domainId, domain] = onlyOf('AWS::ApiGatewayV2::DomainName');
    expect(domain.Properties).toEqual({
      DomainName: DOMAIN,
      DomainNameConfigurations: [{ CertificateArn: CERTIFICATE, EndpointType: 'REGIONAL' }],
    });
    const [, api] = onlyOf('AWS::ApiGatewayV2::Api');
    const [stageId, stage] = onlyOf('AWS::ApiGatewayV2::Stage');
    const [, mapping] = onlyOf('AWS::ApiGatewayV2::ApiMapping');
    expect(mapping.Properties.ApiId).toEqual({ Ref: Object.entries(resources).find(([, r]) => r === api)![0] });
    expect(mapping.Properties.DomainName).toEqual({ Ref: domainId });
    expect(stage.Properties.StageName).toBe('$default');
    expect(mapping.Properties.Stage).toBe('$default');
    // Named, not referenced: the mapping must wait for the stage to exist.
    expect([mapping.DependsOn ?? []].flat()).toContain(stageId);
    expect(mapping.Properties.ApiMappingKey ?? '').toBe('');
  });

  it('turns the execute-api endpoint off', () => {
    expect(onlyOf('AWS::ApiGatewayV2::Api')[1].Properties.DisableExecuteApiEndpoint).toBe(true);
  });

  it('puts the links and the API root on the domain', () => {
    const functions = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.BASE_URL);
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) {
      expect(fn.Properties.Environment.Variables).toMatchObject({ BASE_URL: `https://${DOMAIN}/v1`, APP_URL: `https://${DOMAIN}` });
    }
    expect(template.findOutputs('ApiUrl').ApiUrl.Value).toBe(`https://${DOMAIN}/v1`);
    expect(JSON.stringify(resources)).not.toContain('execute-api.');
  });

  it('outputs the regional target name (and its hosted zone) for the DNS record', () => {
    const [domainId] = onlyOf('AWS::ApiGatewayV2::DomainName');
    expect(template.findOutputs('ApiDomainTarget').ApiDomainTarget.Value).toEqual({ 'Fn::GetAtt': [domainId, 'RegionalDomainName'] });
    expect(template.findOutputs('ApiDomainHostedZoneId').ApiDomainHostedZoneId.Value).toEqual({ 'Fn::GetAtt': [domainId, 'RegionalHostedZoneId'] });
  });
});

describe('half a custom domain', () => {
  const build = (extra: Record<string, unknown>, env: { account?: string; region?: string } = ENV) => () => new HandoffStack(newApp(extra), 'Half', { env });

  it('fails the synth, saying what to pass, for a domain without a certificate or a certificate without a domain', () => {
    expect(build({ domainName: DOMAIN })).toThrow(/domainName is set but certificateArn is not: .*-c domainName=api\.example\.com -c certificateArn=arn:aws:acm:/);
    expect(build({ certificateArn: CERTIFICATE })).toThrow(/certificateArn is set but domainName is not: .*-c domainName=/);
  });

  it('refuses a domain that is not a host name, an ARN that is not an ACM certificate, and a certificate of another region', () => {
    for (const domainName of ['https://api.handoff.example', 'api.handoff.example/v1', 'api.handoff.example:443', 'localhost', '-api.example.com']) {
      expect(build({ domainName, certificateArn: CERTIFICATE }), domainName).toThrow(/domainName must be a host name/);
    }
    expect(build({ domainName: DOMAIN, certificateArn: 'arn:aws:iam::123456789012:server-certificate/x' })).toThrow(/not an ACM certificate ARN/);
    expect(build({ domainName: DOMAIN, certificateArn: CERTIFICATE.replace('eu-west-1', 'us-east-1') })).toThrow(/certificateArn is in us-east-1, but the API is deployed in eu-west-1/);
  });
});

/** The synth warnings a stack's construction left on it (Annotations), without synthesizing it. */
const warningsOf = (stack: HandoffStack) =>
  stack.node.metadata.filter((entry) => entry.type === 'aws:cdk:warning').map((entry) => String(entry.data));

describe('appUrl', () => {
  it('warns when links would point at a host this stack does not serve, and not when appUrl is its custom domain', () => {
    const elsewhere = new HandoffStack(newApp({ appUrl: 'https://handoff.example.com' }), 'AppUrlElsewhere', { env: ENV });
    expect(warningsOf(elsewhere)).toEqual([expect.stringContaining('appUrl https://handoff.example.com is not this stack')]);
    const otherDomain = new HandoffStack(newApp({ appUrl: 'https://handoff.example.com', domainName: DOMAIN, certificateArn: CERTIFICATE }), 'AppUrlOtherDomain', { env: ENV });
    expect(warningsOf(otherDomain)).toEqual([expect.stringContaining(`(${DOMAIN})`)]);
    const onDomain = new HandoffStack(newApp({ appUrl: `https://${DOMAIN}/`, domainName: DOMAIN, certificateArn: CERTIFICATE }), 'AppUrlOnDomain', { env: ENV });
    expect(warningsOf(onDomain)).toEqual([]);
  }, 180_000);
});
