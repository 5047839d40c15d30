/**
 * The parts of jose that sign service account grants, loaded with a dynamic `import()` on the
 * first token exchange (as the verifier loads ../identity/jose.ts).
 */
export { importPKCS8, SignJWT } from 'jose';
