/**
 * The values the commands' worked examples use (`<command> --help`): one made-up organisation and
 * its records, so the examples read as one session a newcomer could follow, and each id has the
 * form the CLI takes (a lower-case ULID), so an example shows what to paste where.
 */
export const EXAMPLE = {
  org: '01jq7zk3m8x2v5n9t4r6b1c0de',
  client: '01jq7zm5d2w8r4k6p9t3v7x1ab',
  team: '01jq7zn6e3x9s5m7q1v4w8y2bc',
  integration: '01jq80b7x3y5z8a2c4d6e9f1gh',
  webhook: '01jq81c4n6q8s2v5x7z9b3d5fk',
  apiKey: '01jq82d5f7h9k2m4p6r8t1v3xa',
  request: '01jqa2e6g8j1m3p5r7t9w2y4zc',
  template: '01jq83e6g8j1m3p5r7t9w2y4zd',
  appUrl: 'https://handoff.example.com',
  table: 'HandoffStack-Table8235A42E-1A2B3C4D5E6F',
  region: 'eu-west-2',
  sealingKeyArn: 'arn:aws:kms:eu-west-2:123456789012:key/0f3c2a1b-5d4e-4f6a-9b8c-7d6e5f4a3b2c',
  codeKeyArn: 'arn:aws:kms:eu-west-2:123456789012:key/6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d',
  signingKeyArn: 'arn:aws:kms:eu-west-2:123456789012:key/9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b',
} as const;
