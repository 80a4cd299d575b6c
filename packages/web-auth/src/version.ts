/** The library's version (a test checks it against package.json); the server serves the bundle under it. */
export const version = '10.0.0';
