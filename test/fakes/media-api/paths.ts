/** Exact string or RegExp match of a pathname (search() ignores a /g flag's lastIndex). */
export function pathMatches(pattern: string | RegExp, path: string): boolean {
  return typeof pattern === "string" ? pattern === path : path.search(pattern) !== -1;
}
