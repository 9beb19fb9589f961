// Parents of entities along IsPartOf edges (containers, parent domains, glossary nodes), for GraphQL's parentContainers,
// parentDomains and parentNodes.

// @name parents
// Per urn in $urns, its chain of parents nearest first: each step an IsPartOf edge projected by one of $aspects (a
// term's glossaryTermInfo, then its nodes' glossaryNodeInfo). An entity has one parent per aspect, so the walk is a
// line; relationship uniqueness stops a cycle, and $maxDepth bounds the walk.
UNWIND $urns AS urn
MATCH (e:Entity {urn: urn})
USING INDEX SEEK e:Entity(urn)
OPTIONAL MATCH chain = (e)-[:IsPartOf*1..20]->(p:Entity)
WHERE length(chain) <= $maxDepth AND all(r IN relationships(chain) WHERE r.aspect IN $aspects)
WITH urn, p, length(chain) AS depth
ORDER BY urn, depth
RETURN urn, [x IN collect(p) WHERE x IS NOT NULL | x.urn] AS parents

// @name children
// Up to $limit entities whose IsPartOf edge, projected by one of $aspects, points at $urn (a domain's sub-domains, a
// glossary node's children), by urn.
MATCH (p:Entity {urn: $urn})<-[r:IsPartOf]-(c:Entity)
USING INDEX SEEK p:Entity(urn)
WHERE r.aspect IN $aspects
RETURN c.urn AS urn
ORDER BY urn
LIMIT $limit

// @name siblings
// Per urn in $urns, its siblings in either direction (its own SiblingOf edges and those pointing at it: DataHub writes
// the siblings aspect on one side only, or on both), without soft-deleted ones, by urn.
UNWIND $urns AS urn
MATCH (e:Entity {urn: urn})
USING INDEX SEEK e:Entity(urn)
OPTIONAL MATCH (e)-[:SiblingOf]-(s:Entity)
WHERE s.removed IS NULL AND s.urn <> urn
WITH urn, s.urn AS sibling
ORDER BY urn, sibling
RETURN urn, [x IN collect(DISTINCT sibling) WHERE x IS NOT NULL] AS siblingUrns
