import { expect } from 'chai';
import { AppError } from '@tix/kit';
import {
  ALLOWED_TYPES_DEFAULT,
  checkAllowedTypes,
  decideStoredType,
  fileTooLargeMessage,
  normalizeClaimedType,
} from '../../src/uploads/file-type-rules.js';

const ALLOWED = new Set<string>(ALLOWED_TYPES_DEFAULT);
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** The 422 message decideStoredType refuses with (fails when it accepts). */
function refusal(run: () => string): string {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    const appError = error as AppError;
    expect(appError.kind).to.equal('validation_failed');
    const messages = appError.validationErrors?.file as string[];
    expect(messages).to.have.length(1);
    return messages[0]!;
  }
  throw new Error('expected a refusal');
}

describe('file type rules', () => {
  describe('decideStoredType', () => {
    it('stores the detected type when the claim agrees, is absent or says nothing', () => {
      for (const claim of ['image/png', 'IMAGE/PNG', 'image/png; name=x', '', 'application/octet-stream']) {
        expect(
          decideStoredType({ detectedType: 'image/png', isUtf8Text: false }, claim, ALLOWED),
          claim,
        ).to.equal('image/png');
      }
      expect(
        decideStoredType({ detectedType: 'image/jpeg', isUtf8Text: false }, 'image/jpg', ALLOWED),
      ).to.equal('image/jpeg');
      expect(
        decideStoredType({ detectedType: DOCX, isUtf8Text: false }, 'application/zip', ALLOWED),
      ).to.equal(DOCX);
    });

    it('refuses a detected type that is not allowed, whatever the claim (an .exe renamed .png)', () => {
      expect(
        refusal(() =>
          decideStoredType(
            { detectedType: 'application/x-msdownload', isUtf8Text: false },
            'image/png',
            ALLOWED,
          ),
        ),
      ).to.equal('File type application/x-msdownload is not allowed');
    });

    it('refuses a specific claim that differs from the detected type', () => {
      expect(
        refusal(() =>
          decideStoredType({ detectedType: 'image/png', isUtf8Text: false }, 'text/plain', ALLOWED),
        ),
      ).to.equal('File content is image/png, not the declared text/plain');
      expect(
        refusal(() =>
          decideStoredType({ detectedType: 'application/zip', isUtf8Text: false }, DOCX, ALLOWED),
        ),
      ).to.equal(`File content is application/zip, not the declared ${DOCX}`);
    });

    it('accepts unsigned bytes only as claimed text that is UTF-8 without NUL', () => {
      expect(
        decideStoredType({ detectedType: undefined, isUtf8Text: true }, 'text/plain;charset=utf-8', ALLOWED),
      ).to.equal('text/plain');
      expect(decideStoredType({ detectedType: undefined, isUtf8Text: true }, 'text/x-csv', ALLOWED)).to.equal(
        'text/csv',
      );
      expect(
        refusal(() => decideStoredType({ detectedType: undefined, isUtf8Text: false }, 'text/csv', ALLOWED)),
      ).to.equal('File declared as text/csv is not UTF-8 text');
      for (const claim of [
        '',
        'application/octet-stream',
        'text/html',
        'image/svg+xml',
        'application/json',
      ]) {
        expect(
          refusal(() => decideStoredType({ detectedType: undefined, isUtf8Text: true }, claim, ALLOWED)),
          claim,
        ).to.equal('File type is not supported');
      }
    });

    it('follows the configured allow-list, and never stores browser-executable types', () => {
      const imagesOnly = new Set(['image/png']);
      expect(
        refusal(() =>
          decideStoredType({ detectedType: undefined, isUtf8Text: true }, 'text/plain', imagesOnly),
        ),
      ).to.equal('File type is not supported');
      expect(
        refusal(() =>
          decideStoredType({ detectedType: 'application/pdf', isUtf8Text: false }, '', imagesOnly),
        ),
      ).to.equal('File type application/pdf is not allowed');
      const careless = new Set(['image/svg+xml', 'application/xml']);
      expect(
        refusal(() => decideStoredType({ detectedType: 'application/xml', isUtf8Text: true }, '', careless)),
      ).to.equal('File type application/xml is not allowed');
    });
  });

  it('normalizes claims: parameters and case dropped, aliases mapped, octet-stream is no claim', () => {
    expect(normalizeClaimedType(' Image/JPG ; q=1')).to.equal('image/jpeg');
    expect(normalizeClaimedType('application/x-zip-compressed')).to.equal('application/zip');
    expect(normalizeClaimedType('application/octet-stream')).to.equal(null);
    expect(normalizeClaimedType('')).to.equal(null);
    expect(normalizeClaimedType('text/plain')).to.equal('text/plain');
  });

  it('checks a configured allow-list', () => {
    expect(checkAllowedTypes([...ALLOWED_TYPES_DEFAULT])).to.deep.equal([]);
    expect(checkAllowedTypes([])).to.deep.equal(['at least one type is required']);
    expect(checkAllowedTypes(['image/png', 'pdf', 'Text/HTML', 'image/svg+xml'])).to.deep.equal([
      '"pdf" is not a MIME type',
      '"text/html" can never be allowed (browsers execute it)',
      '"image/svg+xml" can never be allowed (browsers execute it)',
    ]);
  });

  it('says the limit the way it is configured', () => {
    expect(fileTooLargeMessage(25 * 1024 * 1024)).to.equal('File is larger than 25 MB');
    expect(fileTooLargeMessage(256 * 1024)).to.equal('File is larger than 256 KB');
    expect(fileTooLargeMessage(1000)).to.equal('File is larger than 1000 bytes');
  });
});
