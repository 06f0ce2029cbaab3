import { Stack, Tags } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { KEY_RIGHT_TAGS, type KeyPolicyContext, type KeyPolicyDocument, type KeyRight } from '../lambdas/access/key-policies.ts';

/**
 * The key policies of lambdas/access/key-policies.ts on the stack's keys, and the principal tags
 * that open them. A tag's value is the stack's name, known at synth time, so a role in a nested
 * stack is tagged without naming anything of the main stack (no parameter, no cycle).
 */

/** The context of a key policy for a key of `scope`'s stack (partition and account stay tokens). */
export const keyPolicyContext = (scope: Construct): KeyPolicyContext => {
  const stack = Stack.of(scope);
  return { partition: stack.partition, accountId: stack.account, stackName: stack.stackName };
};

/** The CDK form of a key policy, statement for statement. */
export const keyPolicyDocument = (document: KeyPolicyDocument) => iam.PolicyDocument.fromJson(document);

/**
 * Tags `fn`'s role with `right` for the stack of `key`: the key's policy then lets the role use
 * the key that way (the role's own IAM statement still names the key and the conditions). Only a
 * role the stack makes can be tagged: a grant to any other fails the synth rather than deploying a
 * right KMS would refuse.
 */
export const tagKeyRight = (fn: lambda.IFunction, right: KeyRight, key: kms.IKey) => {
  const role = fn.role;
  if (!(role instanceof iam.Role)) throw new Error(`${fn.node.path}: only a role of this stack can carry the ${KEY_RIGHT_TAGS[right]} tag`);
  Tags.of(role).add(KEY_RIGHT_TAGS[right], Stack.of(key).stackName);
};
