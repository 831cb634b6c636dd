import { expect } from 'chai';
import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import {
  AppError,
  ERROR_KINDS,
  GENERIC_MESSAGES,
  GRPC_CODE_KIND,
  INTERNAL_ERROR_MESSAGE,
  fromGrpcError,
  toErrorEnvelope,
  toGrpcStatus,
  type ErrorKind,
} from '../../src/index.js';

const allKinds = Object.keys(ERROR_KINDS) as ErrorKind[];
const allGrpcCodes = Object.values(GrpcStatus).filter((value): value is number => typeof value === 'number');

/** What a gRPC caller receives for a status a handler produced. */
function asReceived(status: ReturnType<typeof toGrpcStatus>): ServiceError {
  return Object.assign(new Error(status.details), {
    code: status.code!,
    details: status.details!,
    metadata: status.metadata ?? new Metadata(),
  });
}

describe('error model', () => {
  describe('domain error -> gRPC status -> domain error', () => {
    for (const kind of allKinds) {
      it(`carries kind ${kind} across gRPC with its message and validation errors`, () => {
        const original = new AppError(kind, `message for ${kind} ✓`, { títle: ['too long ✓'], limit: 5 });
        const status = toGrpcStatus(original);
        expect(status.code).to.equal(ERROR_KINDS[kind].grpc);
        const received = fromGrpcError(asReceived(status));
        expect(received.kind).to.equal(kind);
        expect(received.message).to.equal(original.message);
        expect(received.validationErrors).to.deep.equal(original.validationErrors);
      });
    }

    it('turns a database that cannot serve into UNAVAILABLE (a 503), without its message', () => {
      const refused = [
        Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
        Object.assign(new Error('the database system is shutting down'), { code: '57P03' }),
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
        new Error('timeout exceeded when trying to connect'),
      ];
      for (const error of refused) {
        const status = toGrpcStatus(error);
        expect(status.code, error.message).to.equal(GrpcStatus.UNAVAILABLE);
        expect(status.details).to.not.contain(error.message);
        expect(fromGrpcError(asReceived(status)).kind).to.equal('unavailable');
      }
      // A statement the database refused is the service's bug, not an outage.
      const rejected = Object.assign(new Error('column "x" does not exist'), { code: '42703' });
      expect(toGrpcStatus(rejected).code).to.equal(GrpcStatus.INTERNAL);
    });

    it('turns anything that is not an AppError into INTERNAL without its message', () => {
      const status = toGrpcStatus(new TypeError('secret detail: connection string postgres://x'));
      expect(status.code).to.equal(GrpcStatus.INTERNAL);
      expect(status.details).to.equal(INTERNAL_ERROR_MESSAGE);
      expect(fromGrpcError(asReceived(status)).kind).to.equal('internal');
    });
  });

  describe('gRPC status without tix metadata -> domain error', () => {
    it('has a kind for every gRPC status code', () => {
      expect(
        Object.keys(GRPC_CODE_KIND)
          .map(Number)
          .sort((a, b) => a - b),
      ).to.deep.equal(allGrpcCodes.sort((a, b) => a - b));
    });

    for (const code of allGrpcCodes) {
      it(`classifies ${GrpcStatus[code]} as ${GRPC_CODE_KIND[code as GrpcStatus]} with a generic message`, () => {
        const error = fromGrpcError(
          Object.assign(new Error('raw transport text 127.0.0.1:50052'), {
            code,
            details: 'raw transport text 127.0.0.1:50052',
            metadata: new Metadata(),
          }),
        );
        expect(error.kind).to.equal(GRPC_CODE_KIND[code as GrpcStatus]);
        expect(error.message).to.equal(GENERIC_MESSAGES[error.kind]);
        expect(error.message).to.not.contain('127.0.0.1');
      });
    }

    it('maps transport failures to 503 and deadlines to 504', () => {
      expect(ERROR_KINDS[GRPC_CODE_KIND[GrpcStatus.UNAVAILABLE]].http).to.equal(503);
      expect(ERROR_KINDS[GRPC_CODE_KIND[GrpcStatus.DEADLINE_EXCEEDED]].http).to.equal(504);
    });
  });

  describe('domain error -> HTTP envelope', () => {
    const expected: Record<ErrorKind, number> = {
      bad_request: 400,
      unauthenticated: 401,
      payment_required: 402,
      permission_denied: 403,
      not_found: 404,
      method_not_allowed: 405,
      conflict: 409,
      precondition_failed: 412,
      payload_too_large: 413,
      unsupported_media_type: 415,
      validation_failed: 422,
      rate_limited: 429,
      internal: 500,
      not_implemented: 501,
      unavailable: 503,
      timeout: 504,
    };

    for (const kind of allKinds) {
      it(`renders ${kind} as HTTP ${expected[kind]} in the envelope`, () => {
        const { status, body } = toErrorEnvelope(new AppError(kind, 'Something specific'));
        expect(status).to.equal(expected[kind]);
        expect(body).to.deep.equal({
          ok: false,
          error: {
            code: expected[kind],
            message: kind === 'internal' ? INTERNAL_ERROR_MESSAGE : 'Something specific',
          },
        });
      });
    }

    it('includes validation_errors only when there are some, scalars included', () => {
      expect(toErrorEnvelope(AppError.validation({ title: ['Title is required'] })).body).to.deep.equal({
        ok: false,
        error: {
          code: 422,
          message: 'Validation failed',
          validation_errors: { title: ['Title is required'] },
        },
      });
      expect(
        toErrorEnvelope(
          new AppError('payment_required', 'Monthly call limit reached', { limit: 1000, used: 1000 }),
        ).body.error,
      )
        .to.have.property('validation_errors')
        .that.deep.equals({ limit: 1000, used: 1000 });
      expect(toErrorEnvelope(AppError.validation({})).body.error).to.not.have.property('validation_errors');
    });
  });
});
