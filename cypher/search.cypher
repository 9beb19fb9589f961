// Reads behind search hits: the deleted-hit guard (src/services/search/deleted-hit-guard.ts).

// @name existing
// Which of these URNs are entities with at least one stored aspect (the guard's fallback, checked after the engine).
UNWIND $urns AS urn
MATCH (e:Entity {urn: urn})-[:ASPECT]->()
RETURN DISTINCT urn
