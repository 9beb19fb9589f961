import neo4j from 'neo4j-driver';
const d = neo4j.driver(process.argv[2]);
(async () => {
  const s = d.session();
  if (process.argv[3] === 'clear') {
    const r = await s.run(`MATCH ()-[r:DownstreamOf]->() WHERE r.via IS NOT NULL REMOVE r.via RETURN count(*) AS n`);
    const j = await s.run(`MATCH ()-[r:DownstreamOf]->() WHERE r.owner STARTS WITH 'urn:li:dataJob:' DELETE r RETURN count(*) AS n`);
    console.log('cleared', r.records[0].get('n').toString(), j.records[0].get('n').toString());
  } else {
    const r = await s.run(`MATCH (a:Entity {urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,lin.t1,PROD)'}) MERGE (q:Entity {urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,via.probe.src,PROD)'}) MERGE (q)-[r:DownstreamOf {aspect: 'probe'}]->(q) SET r.via = 'urn:li:query:probe' RETURN count(*) AS n`);
    console.log('set', r.records[0].get('n').toString());
  }
  await s.close(); await d.close();
})();
