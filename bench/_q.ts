import neo4j from 'neo4j-driver';
const d = neo4j.driver('bolt://127.0.0.1:33399');
(async () => { const s = d.session(); for (const q of process.argv.slice(2)) { const r = await s.run(q); console.log(q, '=>', r.records.map((x) => JSON.stringify(x.toObject())).slice(0, 10).join(' | ')); } await s.close(); await d.close(); })();
