// Metadata-test definitions: the testInfo of test entities, read in one round trip per evaluation.
// Placeholder test nodes (created as targets of IsPassing/IsFailing edges) have no testInfo and are left out.

// @name allDefinitions
MATCH (t:Entity {type: $testType})-[:ASPECT]->(a:Aspect {name: $testInfoAspect})
RETURN t.urn AS urn, a.value AS value
ORDER BY urn

// @name definitionsByUrn
UNWIND $urns AS urn
MATCH (t:Entity {urn: urn})-[:ASPECT]->(a:Aspect {name: $testInfoAspect})
WHERE t.type = $testType
RETURN t.urn AS urn, a.value AS value
ORDER BY urn
