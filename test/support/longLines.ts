// The long-line rule of test/unit/project/lineLength.test.ts: TypeScript's own scanner finds the
// strings, templates and regular expressions of a file; a line over 160 columns may hold one plain string
// (a translation key, a verbatim quote) when the code around it fits, and nothing else.
import * as ts from 'typescript';

export const LIMIT = 160;
interface Token {
  kind: ts.SyntaxKind;
  start: number;
  end: number;
}

const STRINGS = new Set([ts.SyntaxKind.StringLiteral, ts.SyntaxKind.NoSubstitutionTemplateLiteral]);
const TEMPLATE_PARTS = new Set([ts.SyntaxKind.TemplateHead, ts.SyntaxKind.TemplateMiddle, ts.SyntaxKind.TemplateTail]);

// After these a `/` divides; anywhere else it opens a regular expression (the usual tokenizer rule,
// as the scanner alone cannot know the grammar's context).
const ENDS_OPERAND = new Set([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.PrivateIdentifier,
  ts.SyntaxKind.NumericLiteral,
  ts.SyntaxKind.BigIntLiteral,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.CloseParenToken,
  ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.CloseBraceToken,
  ts.SyntaxKind.PlusPlusToken,
  ts.SyntaxKind.MinusMinusToken,
  ts.SyntaxKind.ThisKeyword,
  ts.SyntaxKind.SuperKeyword,
  ts.SyntaxKind.TrueKeyword,
  ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.NullKeyword,
]);

/** The literal tokens of one file: strings, template parts and regular expressions, with their offsets. */
export function literalTokens(text: string): Token[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  const braces: boolean[] = []; // per open `{`: true when it is a template's `${`
  const tokens: Token[] = [];
  let previous = ts.SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !ENDS_OPERAND.has(previous)) {
      kind = scanner.reScanSlashToken();
    } else if (kind === ts.SyntaxKind.CloseBraceToken && braces.pop() === true) {
      kind = scanner.reScanTemplateToken(false);
    } else if (kind === ts.SyntaxKind.OpenBraceToken) {
      braces.push(false);
    }
    if (kind === ts.SyntaxKind.TemplateHead || kind === ts.SyntaxKind.TemplateMiddle) braces.push(true);
    if (STRINGS.has(kind) || TEMPLATE_PARTS.has(kind) || kind === ts.SyntaxKind.RegularExpressionLiteral) {
      tokens.push({ kind, start: scanner.getTokenStart(), end: scanner.getTokenEnd() });
    }
    previous = kind;
  }
  return tokens;
}

/** Why one line breaks the rule, or undefined when it keeps it. `lineStart`/`lineEnd` are offsets in `text`. */
function lineFault(line: string, lineStart: number, tokens: Token[]): string | undefined {
  if (line.length <= LIMIT) return undefined;
  const lineEnd = lineStart + line.length;
  const onLine = tokens.filter((t) => t.start < lineEnd && t.end > lineStart);
  if (onLine.some((t) => t.kind === ts.SyntaxKind.RegularExpressionLiteral)) return 'a regular expression on a long line';
  if (onLine.some((t) => TEMPLATE_PARTS.has(t.kind))) return 'a template with ${} on a long line';
  if (onLine.length === 0) return `${line.length} columns without a string`;
  if (onLine.length > 1) return `${onLine.length} strings on a long line`;
  const [literal] = onLine;
  const literalColumns = Math.min(literal.end, lineEnd) - Math.max(literal.start, lineStart);
  const rest = line.length - literalColumns;
  return rest > LIMIT ? `${rest} columns of code besides its string` : undefined;
}

/** Every offending line of one file's text, as `line: reason` (1-based lines). */
export function longLineFaults(text: string): string[] {
  const tokens = literalTokens(text);
  const faults: string[] = [];
  let offset = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const fault = lineFault(line, offset, tokens);
    if (fault) faults.push(`${index + 1}: ${fault}`);
    offset += raw.length + 1;
  });
  return faults;
}
