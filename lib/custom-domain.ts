import { Stack, Token } from 'aws-cdk-lib';
import { ContextError } from './context-error.ts';

export interface CustomDomain {
  /** The API's host name, e.g. `api.example.com`. */
  domainName: string;
  /** The ACM certificate covering it, in the stack's region (a regional HTTP API endpoint needs one there). */
  certificateArn: string;
}

const HOST_NAME = /^(?=.{1,253}$)(?:(?!-)[a-z0-9-]{1,63}(?<!-)\.)+[a-z][a-z0-9-]{0,62}(?<!-)$/;
const CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:([a-z0-9-]+):\d{12}:certificate\/[0-9a-f-]{36}$/;

const USAGE = 'Deploy with both, e.g. -c domainName=api.example.com -c certificateArn=arn:aws:acm:<region>:<account>:certificate/<id>';

/**
 * The optional custom domain, from its two settings: both or neither. Half a setting fails the
 * synth: a domain without its certificate cannot serve TLS, and a certificate alone names nothing.
 */
export const customDomainOf = (stack: Stack, settings: { domainName?: string; certificateArn?: string }): CustomDomain | undefined => {
  const { domainName, certificateArn } = settings;
  if (domainName === undefined && certificateArn === undefined) return undefined;
  if (domainName === undefined) throw new ContextError(`certificateArn is set but domainName is not: the certificate needs the domain it covers. ${USAGE}`);
  if (certificateArn === undefined) throw new ContextError(`domainName is set but certificateArn is not: the domain needs an ACM certificate to serve TLS. ${USAGE}`);
  const host = domainName.toLowerCase();
  if (!HOST_NAME.test(host)) throw new ContextError(`domainName must be a host name such as api.example.com (no scheme, port or path): ${domainName}`);
  const arn = CERTIFICATE_ARN.exec(certificateArn);
  if (!arn) throw new ContextError(`certificateArn is not an ACM certificate ARN: ${certificateArn}`);
  if (!Token.isUnresolved(stack.region) && arn[1] !== stack.region) {
    throw new ContextError(`certificateArn is in ${arn[1]}, but the API is deployed in ${stack.region}: a regional custom domain needs a certificate of its own region`);
  }
  return { domainName: host, certificateArn };
};
