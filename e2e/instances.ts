/**
 * Two demo processes sharing one throwaway Redis (tests/instances.spec.ts): any instance serves
 * any thread, as behind a load balancer.
 */
export const REDIS_PORT = Number(process.env.E2E_REDIS_PORT ?? 4340)
const base = Number(process.env.E2E_SHARED_PORT ?? 4341)

export const SHARED_DEMOS = [0, 1].map((offset) => ({
  port: base + offset,
  url: `http://127.0.0.1:${base + offset}`,
  env: { PORT: String(base + offset), REDIS_URL: `redis://127.0.0.1:${REDIS_PORT}`, TOOLGATE_DEMO_DELAY_MS: '4', TOOLGATE_DEMO_TEST_HOOKS: '1' },
}))
