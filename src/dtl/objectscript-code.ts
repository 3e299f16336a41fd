/**
 * The ObjectScript statement subset of `<code>` (dtl-reference §1.10, vector 40): `Set`, `Do`,
 * `If`/`ElseIf`/`Else { }`, `For v=a:b:c { }`, `For { }`, `Quit`, `Continue`, `Kill`, with
 * post-conditionals (`Quit:x=""`), and the macros $$$OK, $$$ISOK, $$$ISERR, $$$TRACE, $$$LOG….
 * Class method bodies use the same subset plus `Quit value` / `Return value`.
 * Anything else is a compile error at its position. Code shares
 * the run's locals, `source`, `target` and `aux`; curly paths are not available inside it.
 */
import { ObjectScriptError, type RunContext } from './context.ts';
import { compileExpr, compileSteps, EMPTY_SCOPE, type CompileScope, type Fn } from './compile-expr.ts';
import { Dec } from './decimal.ts';
import { DtlSyntaxError, type Position } from './diagnostics.ts';
import type { ExprNode } from './expr-ast.ts';
import { ExprParser } from './expr-parser.ts';
import { PathError, writePath } from './json-path.ts';
import { cloneJson, toJson, toNum, truthy } from './values.ts';

/** 0: go on; 1: Quit (leaves a loop, else the block); 2: Continue; 3: leave the method. */
type Signal = 0 | 1 | 2 | 3;
type Statement = (ctx: RunContext) => Signal;

const MAX_ITERATIONS = 10_000_000;
const COMMANDS: Record<string, string> = {
  S: 'SET',
  SET: 'SET',
  D: 'DO',
  DO: 'DO',
  I: 'IF',
  IF: 'IF',
  E: 'ELSE',
  ELSE: 'ELSE',
  ELSEIF: 'ELSEIF',
  F: 'FOR',
  FOR: 'FOR',
  Q: 'QUIT',
  QUIT: 'QUIT',
  K: 'KILL',
  KILL: 'KILL',
  CONTINUE: 'CONTINUE',
  RETURN: 'RETURN',
};

function runBlock(statements: Statement[], ctx: RunContext): Signal {
  for (const s of statements) {
    const signal = s(ctx);
    if (signal !== 0) return signal;
  }
  return 0;
}

class CodeParser {
  private readonly p: ExprParser;
  constructor(
    private readonly text: string,
    base: Position,
    private readonly scope: CompileScope,
    /** In a class method `Quit value` / `Return value` hand a value back. */
    private readonly inMethod: boolean,
  ) {
    this.p = new ExprParser(text, base);
    this.p.allowMacros = true;
  }

  fail(message: string, offset?: number): never {
    return this.p.fail(message, offset);
  }

  /** Skips blanks, newlines and comments. */
  skip(): void {
    for (;;) {
      const t = this.text;
      let i = this.p.offset;
      while (i < t.length && /\s/.test(t[i]!)) i++;
      if (t.startsWith('//', i) || t[i] === ';' || t.startsWith('#;', i)) {
        const end = t.indexOf('\n', i);
        this.p.offset = end < 0 ? t.length : end;
        continue;
      }
      if (t.startsWith('/*', i)) {
        const end = t.indexOf('*/', i + 2);
        if (end < 0) this.fail('unclosed /* comment', i);
        this.p.offset = end + 2;
        continue;
      }
      this.p.offset = i;
      return;
    }
  }

  parseBlock(closing: boolean): Statement[] {
    const statements: Statement[] = [];
    for (;;) {
      this.skip();
      if (this.p.atEnd()) {
        if (closing) this.fail('missing "}" to close the block');
        return statements;
      }
      if (this.p.peek('}')) {
        if (!closing) this.fail('unexpected "}"');
        this.p.offset += 1;
        return statements;
      }
      statements.push(this.parseCommand());
    }
  }

  parseCommand(): Statement {
    const start = this.p.offset;
    if (this.p.peek('$$$')) {
      // A macro used as a statement (`$$$TRACE("…")`).
      const macro = compileExpr(this.p.parseExpr(), this.scope);
      return (ctx) => {
        macro(ctx);
        return 0;
      };
    }
    const word = /^[A-Za-z]+/.exec(this.text.slice(start));
    const command = word ? COMMANDS[word[0].toUpperCase()] : undefined;
    if (!word || !command) {
      this.fail(
        `unsupported statement "${this.text.slice(start, start + 20).split('\n')[0]}" in <code> (supported: Set, Do, If/ElseIf/Else, For, Quit, Continue, Kill)`,
        start,
      );
    }
    this.p.offset += word[0].length;
    const condition = this.p.eat(':') ? compileExpr(this.p.parseExpr(), this.scope) : null;
    const statement = this.parseArguments(command, start);
    if (!condition) return statement;
    return (ctx) => (truthy(condition(ctx)) ? statement(ctx) : 0);
  }

  /** Whether the command has arguments on its line (a blank then something other than a newline / brace). */
  hasArguments(): boolean {
    const rest = this.text.slice(this.p.offset);
    return /^[ \t]+[^\s{}/;]/.test(rest) && !/^[ \t]+\/\//.test(rest);
  }

  parseArguments(command: string, start: number): Statement {
    switch (command) {
      case 'SET': {
        const sets: Statement[] = [];
        do {
          this.p.skipSpaces();
          sets.push(this.parseSetArgument());
        } while (this.p.eat(','));
        return (ctx) => runBlock(sets, ctx);
      }
      case 'DO': {
        const calls: Fn[] = [];
        do {
          this.p.skipSpaces();
          const at = this.p.offset;
          const node = this.p.parseExpr();
          if (!['method', 'function', 'classMethod', 'system'].includes(node.kind)) this.fail('Do needs a method or function call', at);
          calls.push(compileExpr(node, this.scope));
        } while (this.p.eat(','));
        return (ctx) => {
          for (const c of calls) c(ctx);
          return 0;
        };
      }
      case 'IF':
        return this.parseIf();
      case 'ELSEIF':
      case 'ELSE':
        return this.fail(`${command === 'ELSE' ? 'Else' : 'ElseIf'} without a preceding If block`, start);
      case 'FOR':
        return this.parseFor();
      case 'QUIT':
      case 'RETURN': {
        if (!this.hasArguments()) return command === 'RETURN' ? () => 3 : () => 1;
        if (!this.inMethod) this.fail(`${command === 'RETURN' ? 'Return' : 'Quit'} with a value is only allowed in a class method`, this.p.offset);
        this.p.skipSpaces();
        const value = compileExpr(this.p.parseExpr(), this.scope);
        return (ctx) => {
          ctx.methodResult = value(ctx);
          return 3;
        };
      }
      case 'CONTINUE':
        return () => 2;
      default: {
        const names: string[] = [];
        if (this.hasArguments()) {
          do {
            this.p.skipSpaces();
            names.push(this.p.ident('a variable name after Kill'));
          } while (this.p.eat(','));
        }
        return (ctx) => {
          if (names.length === 0) for (const k of Object.keys(ctx.locals)) delete ctx.locals[k];
          for (const n of names) delete ctx.locals[n];
          return 0;
        };
      }
    }
  }

  parseSetArgument(): Statement {
    const at = this.p.offset;
    const lhs = this.p.parseReference();
    this.p.skipSpaces();
    this.p.expect('=', 'in Set');
    this.p.skipSpaces();
    const value = compileExpr(this.p.parseExpr(), this.scope);
    return this.assignment(lhs, value, at);
  }

  assignment(lhs: ExprNode, value: Fn, at: number): Statement {
    if (lhs.kind === 'local') {
      const name = lhs.name;
      return (ctx) => {
        const v = value(ctx);
        ctx.locals[name] = typeof v === 'object' && v !== null && !(v instanceof Dec) ? cloneJson(toJson(v)) : v;
        return 0;
      };
    }
    if (lhs.kind === 'path' && lhs.steps.length > 0 && lhs.root !== 'source') {
      const steps = compileSteps(lhs.steps, this.scope);
      const root = lhs.root;
      const pos = lhs.pos;
      return (ctx) => {
        // Setting `map(k)` creates the local array `map` on first use.
        const container = root === 'target' ? ctx.target : root === 'aux' ? ctx.aux : lhs.subscripted ? (ctx.locals[root] ??= {}) : ctx.locals[root];
        if (container === undefined) throw new ObjectScriptError('UNDEFINED', root, pos);
        try {
          writePath(container, steps(ctx), 'set', '', cloneJson(toJson(value(ctx))));
        } catch (error) {
          if (error instanceof PathError) throw new ObjectScriptError('INVALID OREF', error.message, pos);
          throw error;
        }
        return 0;
      };
    }
    return this.fail('Set needs a variable or a target property on the left of "="', at);
  }

  parseCondition(): Fn {
    this.p.skipSpaces();
    const conditions: Fn[] = [];
    do {
      this.p.skipSpaces();
      conditions.push(compileExpr(this.p.parseExpr(), this.scope));
    } while (this.p.eat(','));
    return (ctx) => (conditions.every((c) => truthy(c(ctx))) ? Dec.ONE : Dec.ZERO);
  }

  braceBlock(what: string): Statement[] {
    this.p.skipSpaces();
    this.skip();
    if (!this.p.eat('{')) this.fail(`expected "{" after ${what} (only the block form is supported)`);
    return this.parseBlock(true);
  }

  parseIf(): Statement {
    const branches: { when: Fn | null; body: Statement[] }[] = [{ when: this.parseCondition(), body: this.braceBlock('If') }];
    for (;;) {
      const save = this.p.offset;
      this.skip();
      const word = /^(ElseIf|Else|E)\b/i.exec(this.text.slice(this.p.offset));
      if (!word) {
        this.p.offset = save;
        break;
      }
      this.p.offset += word[0].length;
      if (word[0].toUpperCase() === 'ELSEIF') branches.push({ when: this.parseCondition(), body: this.braceBlock('ElseIf') });
      else {
        branches.push({ when: null, body: this.braceBlock('Else') });
        break;
      }
    }
    return (ctx) => {
      for (const b of branches) if (b.when === null || truthy(b.when(ctx))) return runBlock(b.body, ctx);
      return 0;
    };
  }

  parseFor(): Statement {
    if (!this.hasArguments()) {
      const body = this.braceBlock('For');
      return (ctx) => {
        for (let n = 0; n < MAX_ITERATIONS; n++) {
          const signal = runBlock(body, ctx);
          if (signal === 1) return 0;
          if (signal === 3) return 3;
        }
        throw new ObjectScriptError('MAXITERATIONS', 'For loop did not Quit');
      };
    }
    this.p.skipSpaces();
    const name = this.p.ident('the loop variable');
    this.p.expect('=', 'after the For variable');
    const startFn = compileExpr(this.p.parseExpr(), this.scope);
    const incFn = this.p.eat(':') ? compileExpr(this.p.parseExpr(), this.scope) : null;
    const endFn = incFn && this.p.eat(':') ? compileExpr(this.p.parseExpr(), this.scope) : null;
    const body = this.braceBlock('For');
    return (ctx) => {
      let value = toNum(startFn(ctx));
      const inc = incFn ? toNum(incFn(ctx)) : null;
      const end = endFn ? toNum(endFn(ctx)) : null;
      for (let n = 0; n < MAX_ITERATIONS; n++) {
        if (end && inc && (inc.sign() >= 0 ? value.cmp(end) > 0 : value.cmp(end) < 0)) return 0;
        ctx.locals[name] = value;
        const signal = runBlock(body, ctx);
        if (signal === 3) return 3;
        if (signal === 1 || !inc) return 0;
        value = toNum(ctx.locals[name]).add(inc);
      }
      throw new ObjectScriptError('MAXITERATIONS', `For ${name} did not end`);
    };
  }
}

/** Compiles a `<code>` body. Throws DtlSyntaxError at the first unsupported construct. */
export function compileCode(text: string, base: Position, scope: CompileScope = EMPTY_SCOPE, inMethod = false): (ctx: RunContext) => void {
  if (/^\s*$/.test(text)) return () => undefined;
  if (/(^|\n)[A-Za-z%]/.test(text.replace(/^\n+/, ''))) {
    const line = text
      .replace(/^\n+/, '')
      .split('\n')
      .findIndex((l) => /^[A-Za-z%]/.test(l));
    throw new DtlSyntaxError('ObjectScript <code> lines must start with a space or tab (labels are not supported)', { line: base.line + line, column: 1 });
  }
  const statements = new CodeParser(text, base, scope, inMethod).parseBlock(false);
  return (ctx) => {
    runBlock(statements, ctx);
  };
}
