import fc from 'fast-check';
import { innerTokens, innerTokensOf } from '../../src/services/search/text-analysis';

describe('word splitting of document text', () => {
  it('finds the inner words of tokens with separators, case changes and digits', () => {
    expect(innerTokens('customer_email of the SampleKafkaDataset')).toEqual(['customer email', 'sample kafka dataset']);
    expect(innerTokens('HTTPServer covid19 Ab ABC abc 42')).toEqual(['http server', 'covid 19']);
    expect(innerTokens('Éclair_au_café')).toEqual(['éclair au café']);
  });

  it('skips only values with no inner words: the same answer as the full splitting for any text', () => {
    const chars = fc.constantFrom(...'aAzZbQ09_- .,/:;()\\\téÉΣσ١'.split(''));
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 24 }).map((cs) => cs.join('')), (value) => {
        expect(innerTokens(value)).toEqual(innerTokensOf(value));
      }),
      { numRuns: 20_000 },
    );
  });
});
