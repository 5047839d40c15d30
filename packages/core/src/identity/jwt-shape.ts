const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** A token is treated as a JWT when it has three base64url segments. */
export function isJwtShape(token: string): boolean {
  return JWT_SHAPE.test(token);
}
