// The console's modules import their CSS (esbuild bundles it); a unit test in node loads none of it.
require.extensions['.css'] = () => {};
