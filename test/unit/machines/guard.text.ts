import ts from "typescript"

// A transition's guard as one line of text, read from either side of the extractor comparison: the guard object the
// running machine holds, or what Stately's extractor returns for the source. A named guard reads as its name, with its
// params when they are data (`isDocumentPassingUserGate {"from":"queued"}`); an and/or/not combinator as what it
// combines (`and(isArmable, not(hasDraftPlan))`); anything else (an inline function) as "inline".

const COMBINATORS = new Set(["and", "or", "not"])

/** Params computed at run time (a function) are no data an editor can show: both sides leave them out. */
function namedGuardText(type: string, params: unknown): string {
  const data = params !== undefined && typeof params !== "function" && !(isRecord(params) && Object.keys(params).length === 0)
  return data ? `${type} ${JSON.stringify(params)}` : type
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value)

/** A guard as the running machine holds it: a name, `{ type, params }`, or a function (xstate's combinators carry `guards`). */
export function runtimeGuardText(guard: unknown): string | null {
  if (guard === undefined || guard === null) return null
  if (typeof guard === "string") return guard
  if (typeof guard === "function") {
    const inner = (guard as { guards?: unknown }).guards
    return Array.isArray(inner) && COMBINATORS.has(guard.name) ? `${guard.name}(${inner.map(runtimeGuardText).join(", ")})` : "inline"
  }
  if (isRecord(guard) && typeof guard.type === "string") return namedGuardText(guard.type, guard.params)
  return "inline"
}

/** A guard as the extractor returns it: a named one with its params, or an inline one as its source text. */
export function extractedGuardText(cond: { kind: string; type: string; params?: unknown } | undefined): string | null {
  if (cond === undefined) return null
  if (cond.kind === "named") return namedGuardText(cond.type, cond.params)
  const file = ts.createSourceFile("guard.ts", `(${cond.type})`, ts.ScriptTarget.Latest)
  const statement = file.statements[0]
  return file.statements.length === 1 && statement !== undefined && ts.isExpressionStatement(statement) ? guardOfSource(statement.expression) : "inline"
}

/** An inline guard's source read the way xstate builds it: and/or take an array of guards, not takes one. */
function guardOfSource(node: ts.Expression): string {
  if (ts.isParenthesizedExpression(node)) return guardOfSource(node.expression)
  if (ts.isStringLiteralLike(node)) return node.text
  if (ts.isObjectLiteralExpression(node)) {
    const value = literalOf(node)
    return isRecord(value) && typeof value.type === "string" ? namedGuardText(value.type, value.params) : "inline"
  }
  if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && COMBINATORS.has(node.expression.text)) {
    const name = node.expression.text
    const [argument] = node.arguments
    const inner = name === "not" ? node.arguments : argument !== undefined && ts.isArrayLiteralExpression(argument) ? argument.elements : undefined
    if (inner !== undefined && node.arguments.length === 1) return `${name}(${inner.map(guardOfSource).join(", ")})`
  }
  return "inline"
}

/** The value of a literal written as data; a property that is not data (a function, a name) is left out, as xstate's params would be computed. */
function literalOf(node: ts.Expression): unknown {
  if (ts.isParenthesizedExpression(node)) return literalOf(node.expression)
  if (ts.isStringLiteralLike(node)) return node.text
  if (ts.isNumericLiteral(node)) return Number(node.text)
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand)) return -Number(node.operand.text)
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false
  if (node.kind === ts.SyntaxKind.NullKeyword) return null
  if (ts.isArrayLiteralExpression(node)) return node.elements.map(literalOf)
  if (ts.isObjectLiteralExpression(node)) {
    const out: Record<string, unknown> = {}
    for (const property of node.properties) {
      if (!ts.isPropertyAssignment(property) || !(ts.isIdentifier(property.name) || ts.isStringLiteralLike(property.name))) continue
      const value = literalOf(property.initializer)
      if (value !== undefined) out[property.name.text] = value
    }
    return out
  }
  return undefined
}
