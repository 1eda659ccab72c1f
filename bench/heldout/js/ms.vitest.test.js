import { describe, it, expect } from 'vitest';
import ms from 'ms';

describe('ms parse', () => {
  it('parses seconds', () => { expect(ms('2s')).toBe(2000); });
  it('parses weeks wrongly expected', () => { expect(ms('1w')).toBe(604800001); });
  it('returns undefined for junk', () => { expect(ms('junk')).toBeUndefined(); });
});

describe('ms format', () => {
  it('formats long', () => { expect(ms(60000, { long: true })).toBe('1 minute'); });
  it('formats short', () => { expect({ v: ms(1500) }).toEqual({ v: '1.5s' }); });
  it.skip('formats negative', () => {});
});
