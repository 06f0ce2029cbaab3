import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export interface GatewayRequest {
  /** Default POST. */
  method?: string;
  /** The route as the API declares it, e.g. /inbound/ticket-status/{secret}: its `{name}` segments give the path parameters. */
  route: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  isBase64Encoded?: boolean;
}

/** The values of the route's `{name}` segments in the path, as API Gateway hands them over. */
const pathParametersOf = (route: string, path: string): Record<string, string> => {
  const values = path.split('/');
  return Object.fromEntries(
    route.split('/').flatMap((segment, i) => {
      const name = /^\{(\w+)\}$/.exec(segment)?.[1];
      return name ? [[name, values[i]!]] : [];
    }),
  );
};

/**
 * An event of API Gateway's HTTP API, payload format 2.0, as the developer guide shows one: what a
 * deployed function is invoked with. Of the request's context only the method and path follow the
 * request (handlers read the method); the rest is the guide's. There is no `cookies` field, as API
 * Gateway leaves it out of a request that sends none.
 */
export const gatewayEventV2 = ({ method = 'POST', route, path, headers = {}, body, isBase64Encoded = false }: GatewayRequest): APIGatewayProxyEventV2 => ({
  version: '2.0',
  routeKey: `${method} ${route}`,
  rawPath: path,
  rawQueryString: '',
  headers,
  requestContext: {
    accountId: '123456789012',
    apiId: 'id',
    domainName: 'id.execute-api.eu-west-2.amazonaws.com',
    domainPrefix: 'id',
    http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'agent' },
    requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
    routeKey: `${method} ${route}`,
    stage: '$default',
    time: '12/Mar/2030:19:03:58 +0000',
    timeEpoch: 1899572638000,
  },
  pathParameters: pathParametersOf(route, path),
  body,
  isBase64Encoded,
});
