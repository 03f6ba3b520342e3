import { type INestApplication, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import type { z } from 'zod';
import { MIN_ROLE, OPTIONAL_AUTH, ZodPipe } from '@gw/core';
import { relayRouteTemplates } from '@gw/relay';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** One route the running gateway serves, with what its code declares about it. */
export interface RouteEntry {
  method: HttpMethod;
  /** Express template: `/api/token/:id`. */
  path: string;
  /** `METHOD path`, the key of the suites' expectation tables. */
  key: string;
  /** The console guard's minimum role (MinRole), when the route has one. */
  minRole?: number;
  optionalAuth: boolean;
  /** The zod contract its body pipe validates with, when it has one. */
  bodySchema?: z.ZodType;
  /** Served by RelayEntry ahead of Express (token auth, OpenAI/Anthropic/Gemini error bodies). */
  relayEntry: boolean;
}

const METHODS: Partial<Record<RequestMethod, HttpMethod>> = {
  [RequestMethod.GET]: 'GET',
  [RequestMethod.POST]: 'POST',
  [RequestMethod.PUT]: 'PUT',
  [RequestMethod.DELETE]: 'DELETE',
  [RequestMethod.PATCH]: 'PATCH',
};

const asList = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : [String(value ?? '')]);

function joinPath(prefix: string, path: string): string {
  const joined = `/${[prefix, path]
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
  return joined;
}

/**
 * Every route of the running app: Nest's controllers as discovered at runtime (paths, methods, the
 * MinRole guard metadata and the zod body contracts), checked against what Express actually registered,
 * plus the relay's POST table served in front of Express. Nothing here is a hand list: a route added to
 * any controller (or to the relay table) shows up, so the suites built on it must say what they expect of it.
 */
export function routeTable(app: INestApplication): RouteEntry[] {
  const routes = new Map<string, RouteEntry>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!controller?.prototype) continue;
      const prefixes = asList(Reflect.getMetadata(PATH_METADATA, controller));
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (requestMethod === undefined || paths === undefined) continue;
        const method = METHODS[requestMethod];
        if (!method) throw new Error(`route table: ${controller.name}.${name} uses a method the suites do not cover`);
        const minRole = (Reflect.getMetadata(MIN_ROLE, handler) ?? Reflect.getMetadata(MIN_ROLE, controller)) as number | undefined;
        const optionalAuth = Boolean(Reflect.getMetadata(OPTIONAL_AUTH, handler) ?? Reflect.getMetadata(OPTIONAL_AUTH, controller));
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, { pipes?: unknown[] }>;
        const bodyArg = Object.entries(args).find(([key, arg]) => key.startsWith('3:') && arg.pipes?.some((p) => p instanceof ZodPipe));
        const bodySchema = (bodyArg?.[1].pipes?.find((p) => p instanceof ZodPipe) as ZodPipe<z.ZodType> | undefined)?.schema;
        for (const prefix of prefixes)
          for (const path of asList(paths)) {
            const full = joinPath(prefix, path);
            const key = `${method} ${full}`;
            routes.set(key, { method, path: full, key, minRole, optionalAuth, bodySchema, relayEntry: false });
          }
      }
    }
  }
  assertExpressAgrees(app, routes);
  for (const { method, path } of relayRouteTemplates()) {
    const key = `${method} ${path}`;
    routes.set(key, { method, path, key, optionalAuth: false, relayEntry: true });
  }
  return [...routes.values()].sort((a, b) => a.key.localeCompare(b.key));
}

/** The discovered routes are exactly the ones Express routes to (a mismatch means the discovery above missed a way routes are declared). */
function assertExpressAgrees(app: INestApplication, routes: Map<string, RouteEntry>): void {
  const express = app.getHttpAdapter().getInstance() as { router?: { stack: unknown[] }; _router?: { stack: unknown[] } };
  const stack = (express.router ?? express._router)?.stack ?? [];
  const registered = new Set<string>();
  for (const layer of stack as { route?: { path: string | string[]; methods: Record<string, boolean> } }[]) {
    if (!layer.route) continue;
    for (const method of Object.keys(layer.route.methods))
      for (const path of asList(layer.route.path)) registered.add(`${method.toUpperCase()} ${path}`);
  }
  const missing = [...routes.keys()].filter((key) => !registered.has(key));
  const unknown = [...registered].filter((key) => !routes.has(key));
  if (missing.length || unknown.length) {
    throw new Error(
      `route table: discovery and Express disagree; not in Express: ${missing.join(', ')}; not discovered: ${unknown.join(', ')}`,
    );
  }
}

/** The route's path with each `:param` replaced by `value(name)`. */
export function fillPath(path: string, value: (name: string) => string): string {
  return path.replace(/(?<=\/):([A-Za-z_]\w*)/g, (_, name: string) => encodeURIComponent(value(name)));
}
