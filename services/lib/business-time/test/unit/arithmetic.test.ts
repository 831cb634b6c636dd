import { expect } from 'chai';
import {
  addBusinessMinutes,
  ALWAYS_OPEN,
  businessMinutesBetween,
  MAX_HOLIDAYS,
  MAX_TARGET_MINUTES,
} from '../../src/index.js';
import { calendar, EVERY_DAY, week, WORKDAYS } from './support.js';

const at = (iso: string): Date => new Date(iso);
const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

describe('business-time arithmetic', () => {
  describe('America/New_York', () => {
    const allDay = calendar({ time_zone: 'America/New_York', hours: week(EVERY_DAY, [['00:00', '24:00']]) });
    const nineToFive = calendar({
      time_zone: 'America/New_York',
      hours: week(EVERY_DAY, [['09:00', '17:00']]),
    });

    it('spring forward (2026-03-08): the local day has 23 hours', () => {
      expect(businessMinutesBetween(allDay, at('2026-03-08T05:00:00Z'), at('2026-03-09T04:00:00Z'))).to.equal(
        23 * 60,
      );
    });

    it('fall back (2026-11-01): the local day has 25 hours', () => {
      expect(businessMinutesBetween(allDay, at('2026-11-01T04:00:00Z'), at('2026-11-02T05:00:00Z'))).to.equal(
        25 * 60,
      );
    });

    it('09:00-17:00 stays local wall time across the change', () => {
      // Saturday 16:00 EST + 120 business minutes = Sunday 10:00 EDT (14:00Z, not 15:00Z).
      expect(iso(addBusinessMinutes(nineToFive, at('2026-03-07T21:00:00Z'), 120))).to.equal(
        '2026-03-08T14:00:00.000Z',
      );
      // Saturday 16:00 EDT + 120 = Sunday 10:00 EST (15:00Z).
      expect(iso(addBusinessMinutes(nineToFive, at('2026-10-31T20:00:00Z'), 120))).to.equal(
        '2026-11-01T15:00:00.000Z',
      );
      expect(
        businessMinutesBetween(nineToFive, at('2026-03-08T00:00:00Z'), at('2026-03-09T00:00:00Z')),
      ).to.equal(480);
    });

    it('an interval over the skipped hour is shorter, over the repeated hour longer', () => {
      const night = calendar({
        time_zone: 'America/New_York',
        hours: week(['sunday'], [['01:00', '04:00']]),
      });
      expect(businessMinutesBetween(night, at('2026-03-08T00:00:00Z'), at('2026-03-09T00:00:00Z'))).to.equal(
        120,
      );
      expect(businessMinutesBetween(night, at('2026-11-01T00:00:00Z'), at('2026-11-02T00:00:00Z'))).to.equal(
        240,
      );
      // 01:30 EDT + 60 minutes = 01:30 EST, the second 01:30 of the day.
      expect(iso(addBusinessMinutes(night, at('2026-11-01T05:30:00Z'), 60))).to.equal(
        '2026-11-01T06:30:00.000Z',
      );
    });
  });

  describe('Europe/Berlin', () => {
    const night = calendar({ time_zone: 'Europe/Berlin', hours: week(['sunday'], [['01:00', '04:00']]) });

    it('spring forward (2026-03-29): 01:00-04:00 is 120 real minutes', () => {
      expect(businessMinutesBetween(night, at('2026-03-28T12:00:00Z'), at('2026-03-29T12:00:00Z'))).to.equal(
        120,
      );
      // 01:59 CET + 1 minute: 02:00-02:59 do not exist, the next open minute is 03:00 CEST.
      expect(iso(addBusinessMinutes(night, at('2026-03-29T00:59:00Z'), 2))).to.equal(
        '2026-03-29T01:01:00.000Z',
      );
    });

    it('fall back (2026-10-25): 01:00-04:00 is 240 real minutes', () => {
      expect(businessMinutesBetween(night, at('2026-10-24T12:00:00Z'), at('2026-10-25T12:00:00Z'))).to.equal(
        240,
      );
    });

    it('an interval starting in the skipped hour opens at 03:00', () => {
      const gap = calendar({ time_zone: 'Europe/Berlin', hours: week(['sunday'], [['02:30', '05:00']]) });
      expect(iso(addBusinessMinutes(gap, at('2026-03-28T23:00:00Z'), 1))).to.equal(
        '2026-03-29T01:01:00.000Z',
      );
      expect(businessMinutesBetween(gap, at('2026-03-28T23:00:00Z'), at('2026-03-29T23:00:00Z'))).to.equal(
        120,
      );
    });
  });

  describe('holidays', () => {
    it('skip whole local days', () => {
      const ny = calendar({
        time_zone: 'America/New_York',
        hours: week(WORKDAYS, [['09:00', '17:00']]),
        holidays: [{ date: '2026-12-25' }],
      });
      // Thursday 16:00 EST + 120: Friday is a holiday, the weekend closed: Monday 10:00 EST.
      expect(iso(addBusinessMinutes(ny, at('2026-12-24T21:00:00Z'), 120))).to.equal(
        '2026-12-28T15:00:00.000Z',
      );
    });

    it('are dates in the calendar zone, not in UTC', () => {
      const berlin = calendar({
        time_zone: 'Europe/Berlin',
        hours: week(EVERY_DAY, [['00:00', '24:00']]),
        holidays: [{ date: '2026-12-25' }],
      });
      // 2026-12-24T23:30Z is 00:30 on the 25th in Berlin: closed until the 26th starts (23:00Z).
      expect(businessMinutesBetween(berlin, at('2026-12-24T22:00:00Z'), at('2026-12-25T23:30:00Z'))).to.equal(
        90,
      );
    });
  });

  describe('24x7 and bounds', () => {
    it('counts every minute on an always-open calendar, in any zone', () => {
      const anywhere = calendar({ time_zone: 'America/New_York', always_open: true });
      expect(iso(addBusinessMinutes(anywhere, at('2026-03-07T21:00:00Z'), 1440))).to.equal(
        '2026-03-08T21:00:00.000Z',
      );
      expect(iso(addBusinessMinutes(ALWAYS_OPEN, at('2026-01-01T00:00:00Z'), MAX_TARGET_MINUTES))).to.equal(
        '2027-01-01T00:00:00.000Z',
      );
      expect(
        businessMinutesBetween(ALWAYS_OPEN, at('2026-01-02T00:00:00Z'), at('2026-01-01T00:00:00Z')),
      ).to.equal(-1440);
    });

    it('finds the largest target on a calendar with the most holidays quickly', () => {
      const holidays = Array.from({ length: MAX_HOLIDAYS }, (_, i) => ({
        date: new Date(Date.UTC(2026, 0, 1) + i * 2 * 86_400_000).toISOString().slice(0, 10),
      }));
      const busy = calendar({
        time_zone: 'Europe/Berlin',
        hours: week(WORKDAYS, [
          ['09:00', '12:00'],
          ['13:00', '17:00'],
        ]),
        holidays,
      });
      const started = performance.now();
      const due = addBusinessMinutes(busy, at('2026-01-01T00:00:00Z'), MAX_TARGET_MINUTES);
      const took = performance.now() - started;
      expect(due).to.not.equal(null);
      expect(businessMinutesBetween(busy, at('2026-01-01T00:00:00Z'), due!)).to.equal(MAX_TARGET_MINUTES);
      expect(took).to.be.lessThan(2000);
    });

    it('answers null, in bounded time, when a sparse calendar cannot reach the target', () => {
      const sparse = calendar({
        time_zone: 'Europe/Berlin',
        hours: { monday: [{ start: '09:00', end: '09:01' }] },
      });
      const started = performance.now();
      expect(addBusinessMinutes(sparse, at('2026-01-01T00:00:00Z'), MAX_TARGET_MINUTES)).to.equal(null);
      expect(performance.now() - started).to.be.lessThan(3000);
      expect(iso(addBusinessMinutes(sparse, at('2026-01-01T00:00:00Z'), 2))).to.equal(
        '2026-01-12T08:01:00.000Z',
      );
    });
  });
});
