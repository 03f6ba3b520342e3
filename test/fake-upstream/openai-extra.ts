// OpenAI's other routes on the fake provider: Responses (JSON and its event stream), images, speech,
// moderations, edits and a Jina-style rerank. Shapes follow each API reference ("Responses" object and
// streaming events; "Images"; "Audio: create speech"; "Moderations"; Jina's rerank response with usage.total_tokens).
import type { ServerResponse } from 'node:http';
import { DEFAULT_REPLY, sendJson, usageOf } from './responses.js';
import type { FakeRule } from './rules.js';

/** Bytes the fake "speech" answer carries (an MP3 frame header, then padding). */
export const FAKE_SPEECH = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(60, 7)]);

function responsesUsage(rule: FakeRule | undefined) {
  const u = usageOf(rule);
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: u.prompt_tokens_details.cached_tokens },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.total_tokens,
  };
}

function responseObject(model: string, text: string, rule: FakeRule | undefined, status = 'completed') {
  return {
    id: 'resp_fake',
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    error: null,
    incomplete_details: null,
    output:
      status === 'completed'
        ? [
            {
              type: 'message',
              id: 'msg_fake',
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text, annotations: [] }],
            },
          ]
        : [],
    usage: rule?.omitUsage || status !== 'completed' ? null : responsesUsage(rule),
  };
}

/** A multipart upload as recorded: text fields, and each file's name, type and content (as text). */
export async function readForm(bytes: Buffer, contentType: string): Promise<Record<string, unknown>> {
  const form = await new Response(new Uint8Array(bytes), { headers: { 'content-type': contentType } }).formData();
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    out[name] = typeof value === 'string' ? value : { filename: (value as File).name, type: value.type, text: await value.text() };
  }
  return out;
}

/** Seconds of audio the fake transcription reports (OpenAI's usage of type duration; verbose_json's duration). */
export const FAKE_AUDIO_SECONDS = 30;

/** True when the path was one of these routes and it was answered. */
export function sendOpenAiExtra(pathname: string, res: ServerResponse, body: any, rule: FakeRule | undefined): boolean {
  const reply = rule?.reply ?? DEFAULT_REPLY;
  const model = body?.model ?? 'gpt-4o-mini';
  if (pathname.endsWith('/responses/compact')) {
    sendJson(res, 200, {
      id: 'resp_compact_fake',
      object: 'response.compaction',
      created_at: Math.floor(Date.now() / 1000),
      output: [{ type: 'compaction', encrypted_content: 'opaque' }],
      usage: responsesUsage(rule),
    });
    return true;
  }
  if (pathname.endsWith('/responses')) {
    if (!body?.stream) sendJson(res, 200, responseObject(model, reply, rule));
    else {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let seq = 0;
      const event = (type: string, data: object) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
      event('response.created', { response: responseObject(model, '', rule, 'in_progress') });
      event('response.output_item.added', {
        output_index: 0,
        item: { type: 'message', id: 'msg_fake', status: 'in_progress', role: 'assistant', content: [] },
      });
      event('response.content_part.added', {
        item_id: 'msg_fake',
        output_index: 0,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
      for (const word of reply.split(/(?<= )/))
        event('response.output_text.delta', { item_id: 'msg_fake', output_index: 0, content_index: 0, delta: word });
      event('response.output_text.done', { item_id: 'msg_fake', output_index: 0, content_index: 0, text: reply });
      event('response.completed', { response: responseObject(model, reply, rule) });
      res.end();
    }
    return true;
  }
  if (pathname.endsWith('/images/generations')) {
    const n = Number(body?.n ?? 1);
    sendJson(res, 200, {
      created: Math.floor(Date.now() / 1000),
      data: Array.from({ length: n }, (_, i) => ({ url: `https://images.invalid/${i}.png`, revised_prompt: body?.prompt })),
    });
    return true;
  }
  if (pathname.endsWith('/audio/speech')) {
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': FAKE_SPEECH.length });
    res.end(FAKE_SPEECH);
    return true;
  }
  if (pathname.endsWith('/audio/transcriptions') || pathname.endsWith('/audio/translations')) {
    const format = body?.response_format ?? 'json';
    if (format === 'text') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(reply);
    } else if (format === 'verbose_json')
      sendJson(res, 200, { task: 'transcribe', language: 'english', duration: FAKE_AUDIO_SECONDS, text: reply, segments: [] });
    else sendJson(res, 200, { text: reply, usage: { type: 'duration', seconds: FAKE_AUDIO_SECONDS } });
    return true;
  }
  if (pathname.endsWith('/images/edits')) {
    const n = Number(body?.n ?? 1);
    sendJson(res, 200, { created: Math.floor(Date.now() / 1000), data: Array.from({ length: n }, () => ({ b64_json: 'aGk=' })) });
    return true;
  }
  if (pathname.endsWith('/rerank')) {
    const documents: unknown[] = Array.isArray(body?.documents) ? body.documents : [];
    const results = documents.map((document, index) => ({ index, relevance_score: 1 / (index + 1), document: { text: document } }));
    sendJson(res, 200, {
      model,
      results: results.slice(0, body?.top_n ?? results.length),
      ...(rule?.omitUsage ? {} : { usage: { total_tokens: usageOf(rule).prompt_tokens } }),
    });
    return true;
  }
  if (pathname.endsWith('/moderations')) {
    sendJson(res, 200, {
      id: 'modr-fake',
      model,
      results: [{ flagged: false, categories: { violence: false }, category_scores: { violence: 0.001 } }],
    });
    return true;
  }
  if (pathname.endsWith('/edits')) {
    sendJson(res, 200, {
      object: 'edit',
      created: Math.floor(Date.now() / 1000),
      choices: [{ text: reply, index: 0 }],
      usage: usageOf(rule),
    });
    return true;
  }
  return false;
}
