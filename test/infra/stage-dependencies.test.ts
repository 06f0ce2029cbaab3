import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, NestedStack, type CfnElement } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { routeList } from '../../lambdas/http/routes.ts';
import { nestedStackOfRoute, routeKeyOf } from '../../lib/api-functions.ts';
import { HandoffStack } from '../../lib/handoff-stack.ts';

/**
 * API Gateway refuses a stage whose route settings name a route it does not have yet ("Unable to
 * find Route by key ... within the provided RouteSettings"), and CloudFormation creates resources
 * in dependency order only: on a first deploy the stage must come after every route it names. A
 * route of the main stack is a DependsOn of the stage; a route of a nested stack, the nested
 * stack's resource. Read from the templates as synthesized (bundling skipped: only they matter).
 */

const SYNTH_TIMEOUT = 180_000;

type Json = Record<string, any>;

interface Synthesized {
  stack: HandoffStack;
  /** The main template's resources. */
  resources: Record<string, Json>;
  /** Each nested stack's resources, by the logical id of its AWS::CloudFormation::Stack in the main template. */
  nested: Map<string, Record<string, Json>>;
}

const outdirs: string[] = [];
afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

const synth = (context: Record<string, unknown> = {}): Synthesized => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'handoff-infra-stage-'));
  outdirs.push(outdir);
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], emailFrom: 'handoff@test.example', ...context } });
  const stack = new HandoffStack(app, 'StageDependencies');
  const resources: Record<string, Json> = Template.fromStack(stack).toJSON().Resources;
  const nested = new Map<string, Record<string, Json>>();
  for (const child of stack.node.findAll().filter(NestedStack.isNestedStack)) {
    const id = stack.getLogicalId(child.nestedStackResource as CfnElement);
    expect(resources[id]?.Type, id).toBe('AWS::CloudFormation::Stack');
    nested.set(id, Template.fromStack(child).toJSON().Resources);
  }
  return { stack, resources, nested };
};

const routesByKey = (resources: Record<string, Json>) =>
  new Map(Object.entries(resources).filter(([, r]) => r.Type === 'AWS::ApiGatewayV2::Route').map(([id, r]) => [r.Properties.RouteKey as string, id]));

const stageOf = ({ resources }: Synthesized) => {
  const stages = Object.values(resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Stage');
  expect(stages).toHaveLength(1);
  return stages[0]!;
};

/** For each route key the stage's RouteSettings name: where its route is, and whether the stage waits for it. */
const namedRoutes = (synthesized: Synthesized) => {
  const stage = stageOf(synthesized);
  const dependsOn = new Set<string>([stage.DependsOn ?? []].flat());
  const main = routesByKey(synthesized.resources);
  const nested = [...synthesized.nested].map(([stackId, resources]) => ({ stackId, routes: routesByKey(resources) }));
  return Object.keys(stage.Properties.RouteSettings ?? {}).map((key) => {
    const inMain = main.get(key);
    const inNested = nested.filter(({ routes }) => routes.has(key));
    // One route per key in the whole API: API Gateway refuses a second.
    expect(Number(inMain !== undefined) + inNested.length, key).toBe(1);
    const waitsOn = inMain ?? inNested[0]!.stackId;
    return { key, stack: inMain ? 'main' : inNested[0]!.stackId, waitsOn, waits: dependsOn.has(waitsOn) };
  });
};

describe('the $default stage', () => {
  it('depends on every route its route settings name: the route in the main stack, or the nested stack holding it', () => {
    const named = namedRoutes(synth());
    const publicRoutes = routeList().filter((route) => ['public', 'link', 'share_link'].includes(route.scope));
    expect(named.map(({ key }) => key).sort()).toEqual(publicRoutes.map(routeKeyOf).sort());
    // Some of them are in a nested stack (sign-in and session, in the member application's).
    expect(named.filter(({ stack }) => stack !== 'main').length).toBeGreaterThan(0);
    expect(named.filter(({ waits }) => !waits)).toEqual([]);
  }, SYNTH_TIMEOUT);

  it('while the member routes are held back (-c memberRoutes=off), names only the routes deployed, and waits for each', () => {
    const synthesized = synth({ memberRoutes: 'off' });
    const named = namedRoutes(synthesized);
    const heldBack = routeList().filter((route) => nestedStackOfRoute(route) !== null);
    expect(heldBack.length).toBeGreaterThan(0);
    const keys = new Set(named.map(({ key }) => key));
    for (const route of heldBack) expect(keys.has(routeKeyOf(route)), routeKeyOf(route)).toBe(false);
    // The nested stacks still hold the functions, but no route of theirs.
    expect(synthesized.nested.size).toBe(2);
    for (const [id, resources] of synthesized.nested) {
      expect(routesByKey(resources).size, id).toBe(0);
      expect(Object.values(resources).some((r) => r.Type === 'AWS::Lambda::Function'), id).toBe(true);
    }
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter(({ waits }) => !waits)).toEqual([]);
    // The deploy says so, lest the second step be forgotten.
    Annotations.fromStack(synthesized.stack).hasWarning('/StageDependencies', Match.stringLikeRegexp('memberRoutes=off'));
  }, SYNTH_TIMEOUT);

  it('refuses a memberRoutes setting other than on or off', () => {
    expect(() => synth({ memberRoutes: 'maybe' })).toThrow(/memberRoutes must be on or off/);
  }, SYNTH_TIMEOUT);
});
