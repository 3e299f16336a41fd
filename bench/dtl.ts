/**
 * DTL throughput: runs per second of (a) a transform of 20 assigns (copies, literals, arithmetic,
 * concatenation, a function call) and (b) a foreach over 1,000 source elements appending to a
 * target list, each compiled to closures and interpreted from the AST, in the same process.
 * Prints the median of several timed runs and their spread; asserts nothing.
 * Run: node --import tsx bench/dtl.ts [runs] [secondsPerRun]
 */
import { compileTransform, interpretTransform, parseTransform, type JsonValue } from '../src/dtl/index.ts';
import { spread } from './support/stats.ts';

const runs = Number(process.argv[2] ?? 5);
const secondsPerRun = Number(process.argv[3] ?? 0.5);

const assigns = Array.from({ length: 20 }, (_, i) => {
  const kinds = [
    `<assign value='source.{person.name}' property='target.{p${i}.name}'/>`,
    `<assign value='source.{n}*${i}+1' property='target.{calc${i}}'/>`,
    `<assign value='"id-"_source.{id}_"-${i}"' property='target.{label${i}}'/>`,
    `<assign value='..ToUpper(source.{person.city})' property='target.{city${i}}'/>`,
    `<assign value='${i}' property='target.{lit${i}}'/>`,
  ];
  return kinds[i % kinds.length];
}).join('\n');
const TWENTY = `<transform sourceClass='IOP.Message' targetClass='IOP.Message' create='new'>\n${assigns}\n</transform>`;
const TWENTY_SOURCE: JsonValue = { id: 'A17', n: 3.5, person: { name: 'Ada', city: 'London' } };

const FOREACH = `<transform sourceClass='IOP.Message' targetClass='IOP.Message' create='new'>
<assign value='0' property='total'/>
<foreach property='source.{items()}' key='k'>
<assign value='source.{items(k).sku}_":"_source.{items(k).qty}' property='target.{lines()}' action='append'/>
<assign value='total+source.{items(k).qty}' property='total'/>
</foreach>
<assign value='total' property='target.{total}'/>
</transform>`;
const FOREACH_SOURCE: JsonValue = { items: Array.from({ length: 1000 }, (_, i) => ({ sku: `S${i}`, qty: i % 7 })) };

type Runner = () => unknown;

/** Runs `fn` for about `secondsPerRun` and returns runs per second. */
function rate(fn: Runner): number {
  for (let i = 0; i < 50; i++) fn();
  let count = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(Math.round(secondsPerRun * 1e9));
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let i = 0; i < 10; i++) fn();
    count += 10;
    elapsed = process.hrtime.bigint() - start;
  }
  return count / (Number(elapsed) / 1e9);
}

function measure(label: string, fn: Runner): number {
  const samples = Array.from({ length: runs }, () => rate(fn));
  const s = spread(samples);
  console.log(
    `${label.padEnd(34)} median ${Math.round(s.median).toString().padStart(9)} runs/s   min ${Math.round(s.min).toString().padStart(9)}   max ${Math.round(s.max).toString().padStart(9)}   spread ${s.spreadPct.toFixed(1)}%`,
  );
  return s.median;
}

function scenario(name: string, xml: string, source: JsonValue): void {
  const ast = parseTransform(xml, name);
  const compiled = compileTransform(ast);
  const interpreted = interpretTransform(ast);
  const a = JSON.stringify(compiled.runSync(source).target);
  const b = JSON.stringify(interpreted.run(source).target);
  if (a !== b) throw new Error(`${name}: compiled and interpreted results differ`);
  const c = measure(`${name} — compiled`, () => compiled.runSync(source));
  const i = measure(`${name} — interpreted`, () => interpreted.run(source));
  console.log(`${''.padEnd(34)} compiled / interpreted = ${(c / i).toFixed(2)}×\n`);
}

console.log(`DTL bench: ${runs} runs of ~${secondsPerRun}s each, Node ${process.version}\n`);
scenario('20 assigns', TWENTY, TWENTY_SOURCE);
scenario('foreach over 1,000 elements', FOREACH, FOREACH_SOURCE);
