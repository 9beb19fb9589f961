import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CypherLibrary } from '../../src/stores/graph/cypher';
import type { StatementName } from '../../src/stores/graph/statements.generated';

describe('CypherLibrary', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cypher-library-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const load = (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return new CypherLibrary(dir);
  };
  const get = (library: CypherLibrary, name: string) => library.get(name as StatementName);

  it('reads named statements without comments, indentation or the closing semicolon', () => {
    const library = load({ 'things.cypher': '// file comment\n// @name one\n// why\n  MATCH (n)\n  RETURN n;\n\n// @name two\nRETURN 2\n' });
    expect(library.all()).toEqual(['things/one', 'things/two']);
    expect(get(library, 'things/one')).toBe('MATCH (n)\nRETURN n');
    expect(library.file('things')).toEqual(['MATCH (n)\nRETURN n', 'RETURN 2']);
  });

  it('writes a fragment into every statement of its file that includes it, and does not list it as a statement', () => {
    const library = load({
      'walk.cypher':
        '// @fragment start\n// shared\nUNWIND $xs AS x\n  WITH x\n\n' +
        '// @name first\n{{>start}}\nRETURN x\n' +
        '// @name second\n{{> start }}\nWHERE x > 1\nRETURN {{kept}} AS x\n',
    });
    expect(library.all()).toEqual(['walk/first', 'walk/second']);
    expect(get(library, 'walk/first')).toBe('UNWIND $xs AS x\nWITH x\nRETURN x');
    // Other {{…}} holes are left for the store that fills them.
    expect(get(library, 'walk/second')).toBe('UNWIND $xs AS x\nWITH x\nWHERE x > 1\nRETURN {{kept}} AS x');
  });

  it('refuses a statement that includes a fragment its file does not define', () => {
    expect(() => load({ 'a.cypher': '// @fragment here\nWITH 1 AS x\n', 'b.cypher': '// @name uses\n{{> here}}\nRETURN x\n' })).toThrow(
      'b.cypher: uses includes {{> here}}, which the file does not define',
    );
  });

  it("shares the lineage hops' start: hop and lastHopCounted read each neighbour with the same text", () => {
    const library = new CypherLibrary(join(__dirname, '..', '..', 'cypher'));
    const opening = (text: string) => text.slice(0, text.indexOf('\nWHERE'));
    const hop = library.get('lineage/hop');
    const counted = library.get('lineage/lastHopCounted');
    expect(hop).not.toContain('{{>');
    expect(opening(hop)).toContain('WITH b, b.urn AS urn, parent');
    expect(opening(counted)).toBe(opening(hop));
    expect(library.all()).not.toContain('lineage/neighbours');
  });
});
