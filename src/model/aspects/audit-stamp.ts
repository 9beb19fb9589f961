/** The stamp DataHub's patch templates put in a missing aspect: no time, an unknown actor. */
export const unknownStamp = (namespace: string) => ({ time: 0, actor: `urn:${namespace}:corpuser:unknown` });
