import { expect } from 'chai';
import { importIcal, MAX_HOLIDAYS, MAX_ICAL_LENGTH } from '../../src/index.js';

const vcalendar = (...events: string[]): string =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Tix//test//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
const vevent = (...lines: string[]): string =>
  ['BEGIN:VEVENT', `UID:${Math.random()}@test`, ...lines, 'END:VEVENT'].join('\r\n');

describe('importIcal', () => {
  it('reads all-day events, multi-day ones without their DTEND day', () => {
    const text = vcalendar(
      vevent('SUMMARY:Christmas', 'DTSTART;VALUE=DATE:20261224', 'DTEND;VALUE=DATE:20261227'),
      vevent('SUMMARY:New Year', 'DTSTART;VALUE=DATE:20270101'),
    );
    expect(importIcal(text, { fromYear: 2026 })).to.deep.equal({
      ok: true,
      value: {
        holidays: [
          { date: '2026-12-24', name: 'Christmas' },
          { date: '2026-12-25', name: 'Christmas' },
          { date: '2026-12-26', name: 'Christmas' },
          { date: '2027-01-01', name: 'New Year' },
        ],
        skipped: 0,
      },
    });
  });

  it('reads timed events as the dates they cover (an end at midnight not included)', () => {
    const text = vcalendar(
      vevent('SUMMARY:Offsite', 'DTSTART:20260505T090000', 'DTEND:20260506T120000'),
      vevent('SUMMARY:Party', 'DTSTART:20260601T180000Z', 'DTEND:20260602T000000Z'),
    );
    const result = importIcal(text, { fromYear: 2026 });
    expect(result.ok && result.value.holidays.map((h) => h.date)).to.deep.equal([
      '2026-05-05',
      '2026-05-06',
      '2026-06-01',
    ]);
  });

  it('expands yearly RRULEs over the horizon, honouring EXDATE', () => {
    const text = vcalendar(
      vevent(
        'SUMMARY:Labour Day',
        'DTSTART;VALUE=DATE:20200501',
        'RRULE:FREQ=YEARLY',
        'EXDATE;VALUE=DATE:20270501',
      ),
    );
    const result = importIcal(text, { fromYear: 2026 });
    expect(result.ok && result.value.holidays.map((h) => h.date)).to.deep.equal([
      '2026-05-01',
      ...['2028', '2029', '2030', '2031', '2032', '2033', '2034', '2035'].map((y) => `${y}-05-01`),
    ]);
  });

  it('keeps only the dates within the horizon', () => {
    const text = vcalendar(
      vevent('SUMMARY:Old', 'DTSTART;VALUE=DATE:20190101'),
      vevent('SUMMARY:Far', 'DTSTART;VALUE=DATE:20400101'),
      vevent('SUMMARY:Now', 'DTSTART;VALUE=DATE:20260704'),
    );
    expect(importIcal(text, { fromYear: 2026 })).to.deep.equal({
      ok: true,
      value: { holidays: [{ date: '2026-07-04', name: 'Now' }], skipped: 2 },
    });
  });

  it(`refuses a file with more than ${MAX_HOLIDAYS} dates`, () => {
    const text = vcalendar(vevent('SUMMARY:Every day', 'DTSTART;VALUE=DATE:20260101', 'RRULE:FREQ=DAILY'));
    expect(importIcal(text, { fromYear: 2026 })).to.deep.equal({
      ok: false,
      errors: { ical: [`the file has more than ${MAX_HOLIDAYS} holiday dates`] },
    });
  });

  it('answers garbage with a field error, never an exception', () => {
    const cases: unknown[] = [
      42,
      '',
      'hello',
      'BEGIN:VCALENDAR\r\nthis is not ical\r\n',
      vcalendar('BEGIN:VEVENT', 'DTSTART;VALUE=DATE:2026-99-99', 'END:VEVENT'),
      vcalendar(vevent('SUMMARY:no start')),
      vcalendar(vevent('DTSTART;VALUE=DATE:20260101', 'RRULE:FREQ=NONSENSE')),
      'BEGIN:VCALENDAR\r\n' + 'X'.repeat(MAX_ICAL_LENGTH),
    ];
    for (const input of cases) {
      const result = importIcal(input, { fromYear: 2026 });
      if (result.ok) expect(result.value.holidays, String(input).slice(0, 80)).to.be.an('array');
      else expect(result.errors.ical![0], String(input).slice(0, 80)).to.be.a('string').and.not.equal('');
    }
    expect(importIcal(cases[4])).to.deep.equal({
      ok: false,
      errors: { ical: ['event 1 has an impossible DTSTART (not a calendar date)'] },
    });
    expect(importIcal('hello')).to.deep.equal({
      ok: false,
      errors: { ical: ['not an iCalendar file (no BEGIN:VCALENDAR)'] },
    });
    expect(importIcal(42)).to.deep.equal({
      ok: false,
      errors: { ical: ['ical must be the text of an iCalendar file'] },
    });
  });
});
