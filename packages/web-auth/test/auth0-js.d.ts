// The reference library ships no type declarations; the surface test reads it untyped.
declare module 'auth0-js';
