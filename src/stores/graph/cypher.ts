import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StatementName } from './statements.generated';

/**
 * Named Cypher statements from `cypher/*.cypher`. A file holds blocks introduced by `// @name <file>.<name>`-style
 * headers (`// @name upsertAspect`), addressed as `<file>/<name>`. Statements are fixed text with parameters, so
 * Neo4j caches their plans. Full-line `//` comments are for readers and are not sent.
 */
export class CypherLibrary {
  private readonly statements = new Map<string, string>();

  constructor(dir: string) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.cypher'))) {
      const base = file.replace(/\.cypher$/, '');
      let name: string | null = null;
      let lines: string[] = [];
      const flush = () => {
        if (name) this.statements.set(`${base}/${name}`, lines.join('\n').replace(/;\s*$/, ''));
      };
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
        const header = /^\/\/\s*@name\s+(\S+)/.exec(line);
        if (header) {
          flush();
          name = header[1];
          lines = [];
        } else if (name && !/^\s*(\/\/.*)?$/.test(line)) {
          // Comments and indentation stay in the files: every statement's text crosses Bolt and is pre-parsed by Neo4j
          // on each run, and they were half of it. (No statement has a string literal spanning lines.)
          lines.push(line.trim());
        }
      }
      flush();
    }
  }

  get(name: StatementName): string {
    const text = this.statements.get(name);
    if (!text) throw new Error(`No Cypher statement named ${name}`);
    return text;
  }

  /** Every statement's name (`<file>/<name>`). */
  all(): string[] {
    return [...this.statements.keys()];
  }

  /** Names (`<file>/<name>`) of one file's statements, in file order. */
  names(base: string): string[] {
    return [...this.statements.keys()].filter((k) => k.startsWith(`${base}/`));
  }

  /** All statements of one file in file order (used for the schema file). */
  file(base: string): string[] {
    return [...this.statements.entries()].filter(([k]) => k.startsWith(`${base}/`)).map(([, v]) => v);
  }
}
