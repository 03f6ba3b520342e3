import type { INestApplication } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ZodPipe } from '@gw/core';

const DESCRIPTION = `
Every management route answers \`{success, message, data}\`; a rule violation is HTTP 200 with \`success:false\`.
Logged-in calls need the \`session\` cookie (or an access token in \`Authorization\`) **and** the \`New-Api-User\` header.

The relay is not described here: it speaks the providers' own formats, so their references apply as they are.
- **OpenAI**: \`POST /v1/chat/completions\`, \`/v1/completions\`, \`/v1/embeddings\`, \`GET /v1/models\`
  (https://platform.openai.com/docs/api-reference), authenticated with \`Authorization: Bearer sk-…\`.
- **Anthropic**: \`POST /v1/messages\` (https://docs.anthropic.com/en/api/messages), with \`x-api-key\`.
- **Gemini**: \`POST /v1beta/models/{model}:generateContent\` (https://ai.google.dev/api), with \`x-goog-api-key\` or \`?key=\`.

Errors on those routes use the provider's error body, not the envelope.`;

/**
 * The management API's request schemas are the zod contracts the controllers validate with
 * (`@Body(body(Schema))`). They are handed to the document generator through the standard-schema slot of
 * each parameter's metadata, so the document shows exactly what the pipes accept.
 */
function exposeZodContracts(app: INestApplication): void {
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!controller?.prototype) continue;
      for (const method of Object.getOwnPropertyNames(controller.prototype)) {
        const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) as
          | Record<string, { pipes?: unknown[]; schema?: unknown }>
          | undefined;
        for (const arg of Object.values(args ?? {})) {
          const pipe = arg.pipes?.find((p): p is ZodPipe<never> => p instanceof ZodPipe);
          if (pipe && !arg.schema) arg.schema = pipe.schema;
        }
      }
    }
  }
}

/** The OpenAPI 3 document of `/api/*`. */
export function buildApiDocument(app: INestApplication, version: string): OpenAPIObject {
  exposeZodContracts(app);
  const config = new DocumentBuilder()
    .setTitle('AI Gateway management API')
    .setDescription(DESCRIPTION.trim())
    .setVersion(version)
    .addCookieAuth('session', { type: 'apiKey', in: 'cookie', name: 'session' }, 'session')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'New-Api-User' }, 'new-api-user')
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'Authorization', description: 'access token from GET /api/user/token' },
      'access-token',
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/')) {
      delete document.paths[path];
      continue;
    }
    // Grouped by the first segment after /api (user, token, channel, log, ...), as the console's menus are.
    const tag = path.split('/')[2]!.replace(/[{}]/g, '');
    for (const operation of Object.values(item)) {
      if (operation && typeof operation === 'object' && 'responses' in operation && !operation.tags?.length) operation.tags = [tag];
    }
  }
  return document;
}

/** Serves the viewer at /api/docs and the document at /api/docs/openapi.json. */
export function serveApiDocs(app: INestApplication, version: string): void {
  const document = buildApiDocument(app, version);
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs/openapi.json', yamlDocumentUrl: 'api/docs/openapi.yaml' });
}
