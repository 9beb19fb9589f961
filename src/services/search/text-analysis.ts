/**
 * DataHub's word splitting, done in the service rather than by the engine. DataHub's `word_delimited` analysis splits
 * text on whitespace and `(),./:`, then each token with `word_delimiter_graph` (split_on_case_change,
 * split_on_numerics, preserve_original) and lower-cases it, and `urn_component` does the same to URNs. Those filters
 * live in the engines' analysis-common module, which Elasticsearch's test distribution lacks; so documents carry the
 * tokens themselves (in fields analyzed by the core `standard` analyzer, which every engine has) and query input is
 * split the same way before it is sent. Both engines then answer alike.
 */

import { RECENT_KEYS_PER_GENERATION, RecentAnswers } from '../../model/recent-answers';
import { tryParseUrn } from '../../model/urn';

/** DataHub's main tokenizer: whitespace and `(),./:` (also `\` and `;`, which no name uses as a word character). */
const MAIN_SEPARATORS = /[\s(),./:\\;]+/u;
/** Between the words of a token: `_`, `-` and anything that is neither a letter nor a digit. */
const WORD_SEPARATORS = /[^\p{L}\p{M}\p{N}]+/u;
/** Case changes (`sampleKafka`, `HTTPServer`) and letter/digit boundaries (`covid19`). */
const SUBWORD = /\p{Lu}+(?![\p{Ll}\p{M}])|\p{Lu}?[\p{Ll}\p{M}]+|\p{N}+|[\p{L}\p{M}]+/gu;

/**
 * A token that is one word by every rule below: plain ASCII letters lower case, capitalized or all capitals, or digits.
 * Most words of text are; testing this first skips the Unicode-class splitting (the indexer's top CPU cost on schemas
 * with described fields).
 */
const SIMPLE_TOKEN = /^(?:[A-Z]?[a-z]+|[A-Z]+|[0-9]+)$/;

/** The case and digit parts of one word: `SampleKafkaDataset` → Sample, Kafka, Dataset; `covid19` → covid, 19. */
export function subwords(word: string): string[] {
  return word.match(SUBWORD) ?? [];
}

/**
 * What a value contributes to a words field, lower case: the value, its tokens and their words whole, and per token
 * its words in order as one space-separated value ("covid 19 geotab"), so a query can ask for them together and
 * adjacent (a phrase) and not only each anywhere. `covid19_geotab.us_border` → covid19_geotab.us_border,
 * covid19_geotab, covid19, geotab, "covid 19 geotab", us_border, us, border, "us border".
 */
export const analyze = remembered(analyzeValue);

function analyzeValue(value: string): string[] {
  const out = new Set<string>();
  const add = (t: string) => t !== '' && out.add(t.toLowerCase());
  add(value.trim());
  for (const token of value.split(MAIN_SEPARATORS)) {
    add(token);
    if (SIMPLE_TOKEN.test(token)) continue;
    const words = token.split(WORD_SEPARATORS).filter((w) => w !== '');
    for (const word of words) add(word);
    const parts = words.flatMap(subwords);
    if (parts.length > 1) add(parts.join(' '));
  }
  return [...out];
}

/**
 * Only what a `standard` analysis of the value would not find itself: per token that has words inside (`_`, case
 * changes, digits), those words in order ("customer email"); so long descriptions do not double the document.
 */
export function innerTokens(value: string): readonly string[] {
  return MAY_HAVE_INNER_WORDS.test(value) ? innerTokensRemembered(value) : NO_TOKENS;
}

const innerTokensRemembered = remembered(innerTokensOf);
const NO_TOKENS: readonly string[] = Object.freeze([]);

/**
 * False only for a value every token of which is a SIMPLE_TOKEN: in ASCII letters and digits, a token that is not one
 * has a lower-upper or letter-digit boundary or a capital run before a lower-case letter; anything else (`_`, `-`,
 * non-ASCII) is left to the full splitting. Most text has no inner words, and one scan of it costs less than splitting
 * it or looking it up among recent answers.
 */
const MAY_HAVE_INNER_WORDS = /[^\s(),./:\\;A-Za-z0-9]|[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]|[A-Z]{2}[a-z]/;

/** innerTokens without the scan that skips values with no inner words, nor remembered answers. */
export function innerTokensOf(value: string): string[] {
  const out = new Set<string>();
  for (const token of value.split(MAIN_SEPARATORS)) {
    if (SIMPLE_TOKEN.test(token)) continue;
    const parts = token
      .split(WORD_SEPARATORS)
      .filter((w) => w !== '')
      .flatMap(subwords);
    if (parts.length > 1) out.add(parts.join(' ').toLowerCase());
  }
  return [...out];
}

/**
 * The ids of a URN and of the URNs in its tuple, split into words: urn:li:tag:LegacyTag → legacytag, legacy, tag. Also
 * DataHub's urn_component: an entity's own URN is searchable by its parts (platform, name, origin).
 */
export const urnIdTokens = remembered((value) => {
  const urn = tryParseUrn(value);
  if (!urn) return [];
  return urn.parts.flatMap((p) => analyze(p.startsWith('urn:') ? (tryParseUrn(p)?.id ?? p) : p));
});

/**
 * A splitter that remembers its answers for recent values. An entity's document is rebuilt from all its aspects after
 * each write, and field names recur across datasets, so most values it splits have been split before. The answers are
 * shared: callers only read them.
 */
function remembered(split: (value: string) => string[]): (value: string) => readonly string[] {
  const answers = new RecentAnswers<string[]>(RECENT_KEYS_PER_GENERATION, 512);
  return (value) => answers.get(value, split);
}

/** The words a query term stands for when split like indexed text (`SampleKafka` → sample, kafka); [] when it is one. */
export function queryParts(term: string): string[] {
  const parts = term
    .split(WORD_SEPARATORS)
    .flatMap(subwords)
    .map((p) => p.toLowerCase());
  return parts.length > 1 ? parts : [];
}
