import type { NextFunction, Request, Response } from 'express';
import { isApiPath } from '@gw/core';
import type { GatewayMetrics } from './gateway-metrics.js';

/** The matched route pattern (`/api/user/:id`), never the raw path: labels must stay bounded. */
export function routeLabel(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return (req.baseUrl ?? '') + route.path;
  if (isApiPath(req.path)) return '/api (unmatched)';
  return req.method === 'GET' || req.method === 'HEAD' ? '(console)' : '(unmatched)';
}

/** Counts and times every request Express serves (the relay's POST routes are counted by the relay metrics). */
export function httpMetricsMiddleware(metrics: GatewayMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.path === '/metrics') {
      next();
      return;
    }
    const started = performance.now();
    res.once('finish', () => {
      const route = routeLabel(req);
      metrics.httpRequests.inc({ route, method: req.method, status: String(res.statusCode) });
      metrics.httpDuration.observe({ route, method: req.method }, (performance.now() - started) / 1000);
    });
    next();
  };
}
