import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StatementName } from './statements.generated';

/** `{{> name}}` in a statement: the fragment `name` of the same file, written in at load time. */
const INCLUDE = /\{\{>\s*([\w-]+)\s*\}\}/g;

/**
 * Named Cypher statements from `cypher/*.cypher`. A file holds blocks introduced by `// @name <name>` headers,
 * addressed as `<file>/<name>`. Statements are fixed text with parameters, so Neo4j caches their plans. Full-line `//`
 * comments are for readers and are not sent.
 * A block introduced by `// @fragment <name>` is not a statement: it is text that statements of the same file share,
 * written in where they say `{{> <name>}}`, so every reader of the library (the stores, the plan tests) sees whole
 * statements.
 */
export class CypherLibrary {
  private readonly statements = new Map<string, string>();

  constructor(dir: string) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.cypher'))) {
      const base = file.replace(/\.cypher$/, '');
      const fragments = new Map<string, string>();
      const statements: [string, string][] = [];
      let block: { kind: string; name: string } | null = null;
      let lines: string[] = [];
      const flush = () => {
        if (!block) return;
        const text = lines.join('\n').replace(/;\s*$/, '');
        if (block.kind === 'fragment') fragments.set(block.name, text);
        else statements.push([block.name, text]);
      };
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
        const header = /^\/\/\s*@(name|fragment)\s+(\S+)/.exec(line);
        if (header) {
          flush();
          block = { kind: header[1], name: header[2] };
          lines = [];
        } else if (block && !/^\s*(\/\/.*)?$/.test(line)) {
          // Comments and indentation stay in the files: every statement's text crosses Bolt and is pre-parsed by Neo4j
          // on each run, and they were half of it. (No statement has a string literal spanning lines.)
          lines.push(line.trim());
        }
      }
      flush();
      for (const [name, text] of statements) {
        const whole = text.replace(INCLUDE, (_, fragment: string) => {
          const included = fragments.get(fragment);
          if (included === undefined) throw new Error(`${file}: ${name} includes {{> ${fragment}}}, which the file does not define`);
          return included;
        });
        this.statements.set(`${base}/${name}`, whole);
      }
    }
  }

  get(name: StatementName): string {
    const text = this.statements.get(name);
    if (!text) throw new Error(`No Cypher statement named ${name}`);
    return text;
  }

  /** Every statement's name (`<file>/<name>`); fragments are not statements. */
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
