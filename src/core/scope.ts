/**
 * Which namespaces a pass looks at: those named (all when none are), less the excluded ones.
 * One rule, read by the listing (kube/cluster.ts), the pass (sweep.ts) and explain.
 */

/** Whether --exclude-namespace leaves `namespace` out. An exclusion wins even over a namespace also named. */
export function isExcluded(scope: { readonly excludeNamespaces: readonly string[] }, namespace: string): boolean {
  return scope.excludeNamespaces.includes(namespace);
}
