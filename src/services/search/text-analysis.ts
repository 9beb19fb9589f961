/**
 * DataHub's word splitting, done in the service rather than by the engine. DataHub's `word_delimited` analysis splits
 * text on whitespace and `(),./:`, then each token with `word_delimiter_graph` (split_on_case_change,
 * split_on_numerics, preserve_original) and lower-cases it, and `urn_component` does the same to URNs. Those filters
 * live in the engines' analysis-common module, which Elasticsearch's test distribution lacks; so documents carry the
 * tokens themselves (in fields analyzed by the core `standard` analyzer, which every engine has) and query input is
 * split the same way before it is sent. Both engines then answer alike.
 */

/** DataHub's main tokenizer: whitespace and `(),./:` (also `\` and `;`, which no name uses as a word character). */
const MAIN_SEPARATORS = /[\s(),./:\\;]+/u;
/** Between the words of a token: `_`, `-` and anything that is neither a letter nor a digit. */
const WORD_SEPARATORS = /[^\p{L}\p{M}\p{N}]+/u;
/** Case changes (`sampleKafka`, `HTTPServer`) and letter/digit boundaries (`covid19`). */
const SUBWORD = /\p{Lu}+(?![\p{Ll}\p{M}])|\p{Lu}?[\p{Ll}\p{M}]+|\p{N}+|[\p{L}\p{M}]+/gu;

/** The case and digit parts of one word: `SampleKafkaDataset` → Sample, Kafka, Dataset; `covid19` → covid, 19. */
export function subwords(word: string): string[] {
  return word.match(SUBWORD) ?? [];
}

/**
 * The lower-cased tokens of a value, originals kept: `covid19_geotab.us_border` → covid19_geotab.us_border,
 * covid19_geotab, covid19, covid, 19, geotab, us_border, us, border.
 */
export function analyze(value: string): string[] {
  const out = new Set<string>();
  const add = (t: string) => t !== '' && out.add(t.toLowerCase());
  add(value.trim());
  for (const token of value.split(MAIN_SEPARATORS)) {
    add(token);
    for (const word of token.split(WORD_SEPARATORS)) {
      add(word);
      for (const part of subwords(word)) add(part);
    }
  }
  return [...out];
}

/**
 * Only the tokens a `standard` analysis of the value would not find itself (its splits inside words): what a text
 * field's companion needs beside the field, so long descriptions do not double the document.
 */
export function innerTokens(value: string): string[] {
  const out = new Set<string>();
  for (const token of value.split(/[\s(),./:\\;]+/u)) {
    if (token === '') continue;
    const words = token.split(WORD_SEPARATORS).filter((w) => w !== '');
    const parts = words.flatMap(subwords);
    if (words.length <= 1 && parts.length <= 1) continue;
    for (const w of words) out.add(w.toLowerCase());
    for (const p of parts) out.add(p.toLowerCase());
  }
  return [...out];
}

/** The words a query term stands for when split like indexed text (`SampleKafka` → sample, kafka); [] when it is one. */
export function queryParts(term: string): string[] {
  const parts = term
    .split(WORD_SEPARATORS)
    .flatMap(subwords)
    .map((p) => p.toLowerCase());
  return parts.length > 1 ? parts : [];
}
