/**
 * Model → text: the `<transform>` XML the portal's editor saves, and the IRIS class text (`.cls`)
 * that runs unchanged on IRIS. `parseTransform(serializeTransform(ast))` equals `ast` apart from
 * positions (`withoutPositions`); the same holds for the class form.
 */
import { PARAMETER_NAMES, type ActionNode, type CaseNode, type TransformNode } from './ast.ts';

function attr(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/'/g, '&apos;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}

function text(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function cdata(value: string): string {
  return `<![CDATA[${value.split(']]>').join(']]]]><![CDATA[>')}]]>`;
}

function attributes(pairs: [string, string | null][]): string {
  return pairs
    .filter((p): p is [string, string] => p[1] !== null)
    .map(([name, value]) => ` ${name}='${attr(value)}'`)
    .join('');
}

function common(node: { disabled: boolean; languageOverride: string | null }): [string, string | null][] {
  return [
    ['disabled', node.disabled ? '1' : null],
    ['languageOverride', node.languageOverride],
  ];
}

function element(name: string, attrs: [string, string | null][], children: string[], indent: string): string {
  if (children.length === 0) return `${indent}<${name}${attributes(attrs)} />\n`;
  return `${indent}<${name}${attributes(attrs)} >\n${children.join('')}${indent}</${name}>\n`;
}

function annotation(value: string | null, indent: string): string[] {
  return value === null ? [] : [`${indent}<annotation>${text(value)}</annotation>\n`];
}

function actions(list: ActionNode[], indent: string): string[] {
  return list.map((a) => action(a, indent));
}

function caseElement(c: CaseNode, indent: string): string {
  const inner = `${indent}  `;
  return element('case', [['condition', c.condition], ...common(c)], [...annotation(c.annotation, inner), ...actions(c.actions, inner)], indent);
}

function action(node: ActionNode, indent: string): string {
  const inner = `${indent}  `;
  const notes = annotation(node.annotation, inner);
  switch (node.kind) {
    case 'assign':
      return element(
        'assign',
        [['value', node.value], ['property', node.property], ['action', node.action], ['key', node.key === '' ? null : node.key], ...common(node)],
        notes,
        indent,
      );
    case 'foreach':
      return element(
        'foreach',
        [['property', node.property], ['key', node.key], ['unload', node.unload ? '1' : null], ...common(node)],
        [...notes, ...actions(node.actions, inner)],
        indent,
      );
    case 'if': {
      const branches: string[] = [];
      if (node.whenTrue) branches.push(element('true', [], actions(node.whenTrue, `${inner}  `), inner));
      if (node.whenFalse) branches.push(element('false', [], actions(node.whenFalse, `${inner}  `), inner));
      return element('if', [['condition', node.condition], ...common(node)], [...notes, ...branches], indent);
    }
    case 'switch': {
      const children = [...notes, ...node.cases.map((c) => caseElement(c, inner))];
      if (node.otherwise) children.push(element('default', [], actions(node.otherwise.actions, `${inner}  `), inner));
      return element('switch', common(node), children, indent);
    }
    case 'break':
      return element('break', common(node), notes, indent);
    case 'subtransform':
      return element(
        'subtransform',
        [['class', node.className], ['sourceObj', node.sourceObj], ['targetObj', node.targetObj], ['aux', node.aux === '' ? null : node.aux], ...common(node)],
        notes,
        indent,
      );
    case 'code':
    case 'sql':
      return `${indent}<${node.kind}${attributes(common(node))}>${notes.map((n) => n.trim()).join('')}${node.text === '' ? '' : cdata(node.text)}</${node.kind}>\n`;
    case 'trace':
      return element('trace', [['value', node.value], ...common(node)], notes, indent);
    case 'comment':
      return element('comment', common(node), notes, indent);
    case 'group':
      return element('group', common(node), [...notes, ...actions(node.actions, inner)], indent);
  }
}

/** The `<transform>` element with its actions (no XML declaration, no namespace). */
export function serializeTransform(ast: TransformNode): string {
  const attrs: [string, string | null][] = [
    ['sourceClass', ast.sourceClass],
    ['targetClass', ast.targetClass],
    ['sourceDocType', ast.sourceDocType === '' ? null : ast.sourceDocType],
    ['targetDocType', ast.targetDocType === '' ? null : ast.targetDocType],
    ['create', ast.create],
    ['language', ast.language],
  ];
  const children = [
    ...annotation(ast.annotation, ''),
    ...(ast.pythonImports === '' ? [] : [`<pyFromImport>${text(ast.pythonImports)}</pyFromImport>\n`]),
    ...actions(ast.actions, ''),
  ];
  return `<transform${attributes(attrs)} >\n${children.join('')}</transform>\n`;
}

/** The IRIS class text (`Class … Extends Ens.DataTransformDTL`, parameters, `XData DTL`). */
export function serializeTransformClass(ast: TransformNode, className = ast.className ?? 'User.Transform'): string {
  const depends = ast.dependsOn.length === 0 ? '' : ` [ DependsOn = ${ast.dependsOn.length === 1 ? ast.dependsOn[0] : `(${ast.dependsOn.join(', ')})`} ]`;
  const params = PARAMETER_NAMES.map((name) => `Parameter ${name} = ${ast.parameters[name]};\n\n`).join('');
  const methods = ast.classMethods
    .map((m) => {
      const signature = m.params.map((p) => (p.defaultValue === null ? p.name : `${p.name} = ${p.defaultValue}`)).join(', ');
      const keywords = [m.codeMode === 'expression' ? 'CodeMode = expression' : '', m.language === 'python' ? 'Language = python' : ''].filter(Boolean);
      return `ClassMethod ${m.name}(${signature})${keywords.length ? ` [ ${keywords.join(', ')} ]` : ''}\n{${m.body}}\n\n`;
    })
    .join('');
  return (
    `Class ${className} Extends Ens.DataTransformDTL${depends}\n{\n\n${params}${methods}` +
    `XData DTL [ XMLNamespace = "http://www.intersystems.com/dtl" ]\n{\n${serializeTransform(ast)}}\n\n}\n`
  );
}
