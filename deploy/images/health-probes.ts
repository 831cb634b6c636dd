/**
 * Health checks with nothing but Node built-ins, for container healthchecks in images that have no
 * shell, curl or grpc_health_probe: one grpc.health.v1 Check over HTTP/2, and one HTTP GET.
 */
import http2 from 'node:http2';

/** grpc.health.v1.HealthCheckResponse.ServingStatus, by wire value. */
const SERVING_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] as const;

/**
 * Decodes a HealthCheckResponse message body (protobuf: field 1, varint). An empty message is
 * status 0 (UNKNOWN), as proto3 omits default values.
 */
export function decodeServingStatus(message: Uint8Array): string {
  let status = 0;
  for (let offset = 0; offset < message.length;) {
    const tag = message[offset++]!;
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = message[offset++];
      if (byte === undefined) throw new Error('truncated HealthCheckResponse');
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) break;
    }
    if (tag !== 0x08) throw new Error(`unexpected field in HealthCheckResponse (tag ${tag})`);
    status = value;
  }
  return SERVING_STATUS[status] ?? `UNKNOWN(${status})`;
}

/**
 * Calls grpc.health.v1.Health/Check for the whole server (service "") at `address` (host:port) and
 * returns the serving status; rejects on a transport error, a non-OK grpc-status or a timeout.
 */
export function grpcHealthStatus(address: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${address}`);
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`no answer from ${address} within ${timeoutMs} ms`));
    }, timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      session.destroy();
      reject(error);
    };
    session.on('error', fail);
    const request = session.request({
      ':method': 'POST',
      ':path': '/grpc.health.v1.Health/Check',
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    const chunks: Buffer[] = [];
    let grpcStatus: string | undefined;
    request.on('response', (headers: http2.IncomingHttpHeaders) => {
      // A trailers-only answer carries grpc-status in the headers.
      const status = headers['grpc-status'];
      if (status !== undefined) grpcStatus = String(status);
    });
    request.on('trailers', (trailers: http2.IncomingHttpHeaders) => {
      grpcStatus = String(trailers['grpc-status']);
    });
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', fail);
    request.on('end', () => {
      clearTimeout(timer);
      session.close();
      if (grpcStatus !== '0') {
        reject(new Error(`grpc-status ${grpcStatus ?? 'missing'} from ${address}`));
        return;
      }
      const frame = Buffer.concat(chunks);
      if (frame.length < 5 || frame[0] !== 0) {
        reject(new Error(`unexpected response frame from ${address}`));
        return;
      }
      try {
        resolve(decodeServingStatus(frame.subarray(5, 5 + frame.readUInt32BE(1))));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    // One uncompressed message of length 0: HealthCheckRequest { service: "" }.
    request.end(Buffer.from([0, 0, 0, 0, 0]));
  });
}

/** GETs `url` and resolves with the HTTP status; rejects on a transport error or a timeout. */
export async function httpStatus(url: string, timeoutMs: number): Promise<number> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  await response.arrayBuffer();
  return response.status;
}
