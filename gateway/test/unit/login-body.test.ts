import { expect } from 'chai';
import { AppError } from '@tix/kit';
import { parseBody } from '../../src/http/validate.js';
import { LoginBody } from '../../src/routes/app/session.js';

const parseLoginBody = (body: unknown) => parseBody(LoginBody, body);

function validationErrors(body: unknown): unknown {
  try {
    parseLoginBody(body);
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    expect((error as AppError).httpStatus).to.equal(422);
    return (error as AppError).validationErrors;
  }
  throw new Error('expected a validation error');
}

describe('the login body', () => {
  it('accepts email and password, trimming the email', () => {
    expect(parseLoginBody({ email: ' a@b.c ', password: ' p ', extra: 1 })).to.deep.equal({
      email: 'a@b.c',
      password: ' p ',
    });
  });

  it('names each missing or bad field (422)', () => {
    expect(validationErrors(undefined)).to.deep.equal({
      email: ['Email is required'],
      password: ['Password is required'],
    });
    expect(validationErrors({ email: 5, password: 'x'.repeat(1025) })).to.deep.equal({
      email: ['Email is required'],
      password: ['Password is too long'],
    });
    expect(validationErrors([])).to.deep.equal({ body: ['Expected a JSON object'] });
  });
});
