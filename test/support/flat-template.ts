/**
 * A stack's template with its nested stacks' resources folded in, as if they were one template:
 * each nested resource's reference to a parameter becomes the value the parent passes for it (the
 * parent's own Ref or GetAtt), and the parent's GetAtt of a nested output becomes that output's
 * value. The infra tests then hold every function to the same checks wherever lib/ deploys it.
 */
import { NestedStack, Stack, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';

type Json = any;

const substitute = (value: Json, replace: (node: Json) => Json | undefined): Json => {
  const replaced = replace(value);
  if (replaced !== undefined) return replaced;
  if (Array.isArray(value)) return value.map((item) => substitute(item, replace));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, replace)]));
  return value;
};

export const flatTemplateJson = (stack: Stack): Json => {
  const parent = Template.fromStack(stack).toJSON();
  const resources: Record<string, Json> = { ...parent.Resources };
  const outputsByStack = new Map<string, Record<string, Json>>();
  for (const nested of stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c) && c.nestedStackParent === stack)) {
    const stackId = stack.getLogicalId(nested.nestedStackResource as CfnElement);
    const parameters: Record<string, Json> = resources[stackId]?.Properties?.Parameters ?? {};
    const template = Template.fromStack(nested).toJSON();
    const fromParent = (node: Json) => (node && typeof node === 'object' && typeof node.Ref === 'string' && node.Ref in parameters ? parameters[node.Ref] : undefined);
    for (const [id, resource] of Object.entries(template.Resources ?? {})) {
      if (id in resources) throw new Error(`logical id ${id} is in both ${stack.stackName} and its nested stack ${stackId}`);
      resources[id] = substitute(resource, fromParent);
    }
    outputsByStack.set(stackId, Object.fromEntries(Object.entries(template.Outputs ?? {}).map(([name, output]: [string, Json]) => [name, substitute(output.Value, fromParent)])));
    delete resources[stackId];
  }
  const nestedOutput = (node: Json) => {
    const getAtt = node && typeof node === 'object' ? node['Fn::GetAtt'] : undefined;
    if (!Array.isArray(getAtt) || !outputsByStack.has(getAtt[0]) || !String(getAtt[1]).startsWith('Outputs.')) return undefined;
    return outputsByStack.get(getAtt[0])![String(getAtt[1]).slice('Outputs.'.length)];
  };
  return substitute({ ...parent, Resources: resources }, nestedOutput);
};

export const flatTemplate = (stack: Stack) => Template.fromJSON(flatTemplateJson(stack));
