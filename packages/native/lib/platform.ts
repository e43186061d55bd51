/**
 * Which prebuilt package fits this machine. Names follow sharp and napi-rs:
 * `@kolo/native-<platform>-<arch>[-gnu|-musl]`.
 */

/** What the loader knows about the machine it runs on. */
export interface PlatformInfo {
  /** `process.platform`-`process.arch`, plus the C library on Linux, e.g. `linux-x64-gnu`. */
  readonly triple: string;
  /** The npm package that would hold a prebuilt engine for this machine. */
  readonly packageName: string;
  /** glibc's version on Linux with glibc (`2.36`); undefined elsewhere. */
  readonly glibcVersion: string | undefined;
}

/** Triples with a published prebuilt package. */
export const prebuiltTriples: readonly string[] = ['linux-x64-gnu'];

function glibcVersion(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime;
}

/** Describes this machine (reads glibc's version from Node's diagnostic report on Linux). */
export function currentPlatform(): PlatformInfo {
  const glibc = glibcVersion();
  const libc = process.platform !== 'linux' ? '' : glibc ? '-gnu' : '-musl';
  const triple = `${process.platform}-${process.arch}${libc}`;
  return { triple, packageName: `@kolo/native-${triple}`, glibcVersion: glibc };
}
