import { expect } from 'chai';
import { sanitizeFilename } from '../../src/uploads/filename-rules.js';

describe('filename rules', () => {
  it('keeps ordinary names, including non-ASCII and quotes, normalized to NFC', () => {
    expect(sanitizeFilename('report.pdf')).to.equal('report.pdf');
    expect(sanitizeFilename('Résumé "final" 履歴書.png')).to.equal('Résumé "final" 履歴書.png');
    expect(sanitizeFilename('Re\u0301sume\u0301.txt')).to.equal('Résumé.txt');
  });

  it('drops path components of either separator', () => {
    expect(sanitizeFilename('../../etc/passwd')).to.equal('passwd');
    expect(sanitizeFilename('C:\\Users\\me\\photo.jpg')).to.equal('photo.jpg');
    expect(sanitizeFilename('dir/')).to.equal('file');
  });

  it('drops control and bidirectional characters (no header injection, no spoofed extensions)', () => {
    expect(sanitizeFilename('a\r\nX-Injected: 1\u0000.txt')).to.equal('aX-Injected: 1.txt');
    expect(sanitizeFilename('invoice\u202Egnp.exe')).to.equal('invoicegnp.exe');
    expect(sanitizeFilename('\u200Bzero\u2066width\u2069')).to.equal('zerowidth');
  });

  it('falls back to "file" when nothing is left', () => {
    for (const raw of ['', '   ', '.', '..', '/', '\u0000\u0001', '../..']) {
      expect(sanitizeFilename(raw), JSON.stringify(raw)).to.equal('file');
    }
  });

  it('cuts to 255 characters keeping a short extension, never splitting a character', () => {
    const long = `${'a'.repeat(300)}.pdf`;
    expect(sanitizeFilename(long)).to.equal(`${'a'.repeat(251)}.pdf`);
    const emoji = '😀'.repeat(300);
    expect(Array.from(sanitizeFilename(emoji))).to.have.length(255);
    expect(sanitizeFilename(emoji)).to.equal('😀'.repeat(255));
    expect(sanitizeFilename(`x.${'e'.repeat(300)}`)).to.equal(`x.${'e'.repeat(253)}`);
  });
});
