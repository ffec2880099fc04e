export const probe = "asset served from the classpath";
