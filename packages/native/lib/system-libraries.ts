/**
 * Turns the dynamic loader's complaint about a prebuilt engine into the Debian/Ubuntu package
 * that fixes it. The prebuilt links Debian's shared Gloo, Open MPI and OpenSSL (Debian ships no
 * static libgloo), so a machine without them fails in dlopen with only a library file name.
 */

/** Debian packages the prebuilt engine needs at run time (`apt-get install` installs the rest). */
export const runtimePackages: readonly string[] = ['libgloo0', 'libopenmpi3', 'libssl3'];

/** Shared library (soname) → the Debian/Ubuntu package that installs it. */
const providers: Readonly<Record<string, string>> = {
  'libgloo.so.0': 'libgloo0',
  'libmpi.so.40': 'libopenmpi3',
  'libopen-rte.so.40': 'libopenmpi3',
  'libopen-pal.so.40': 'libopenmpi3',
  'libcrypto.so.3': 'libssl3',
  'libhiredis.so.0.14': 'libhiredis0.14',
  'libibverbs.so.1': 'libibverbs1',
  'libhwloc.so.15': 'libhwloc15',
  'libnl-3.so.200': 'libnl-3-200',
  'libnl-route-3.so.200': 'libnl-route-3-200',
  'libevent_core-2.1.so.7': 'libevent-core-2.1-7',
  'libevent_pthreads-2.1.so.7': 'libevent-pthreads-2.1-7',
  'libz.so.1': 'zlib1g',
  'libudev.so.1': 'libudev1',
  'libstdc++.so.6': 'libstdc++6',
  'libgcc_s.so.1': 'libgcc-s1',
};

/** What is wrong with a library the addon needs, read from a dlopen error message. */
export type LoadProblem =
  | { readonly kind: 'missing-library'; readonly library: string; readonly aptPackage: string | undefined }
  | { readonly kind: 'old-system-library'; readonly symbolVersion: string; readonly library: string }
  | { readonly kind: 'other' };

/**
 * Classifies a dlopen error, e.g. `libmpi.so.40: cannot open shared object file: No such file or
 * directory` or ``/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found``.
 */
export function diagnoseLoadError(message: string): LoadProblem {
  const missing = /([^\s:/]+\.so[.\d]*): cannot open shared object file/.exec(message);
  if (missing) {
    const library = missing[1]!;
    return { kind: 'missing-library', library, aptPackage: providers[library] };
  }
  const version = /(\S+): version [`']([^`']+)' not found/.exec(message);
  if (version) return { kind: 'old-system-library', symbolVersion: version[2]!, library: version[1]! };
  return { kind: 'other' };
}
