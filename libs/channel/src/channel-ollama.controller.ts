import type { Response } from 'express';
import { Body, Controller, Delete, Get, Param, Post, Res } from '@nestjs/common';
import { AdminRoute, body, raw } from '@gw/core';
import { OllamaModelSchema, type OllamaModelRequest } from '@gw/contracts';
import { channelId } from './channel-input.js';
import { ChannelOllamaService } from './channel-ollama.service.js';

/** The channel page's Ollama model management (new-api routes and answers). */
@Controller('api/channel/ollama')
@AdminRoute()
export class ChannelOllamaController {
  constructor(private readonly ollama: ChannelOllamaService) {}

  @Post('pull')
  async pull(@Body(body(OllamaModelSchema)) input: OllamaModelRequest) {
    return raw({ success: true, message: await this.ollama.pull(input.channel_id, input.model_name) });
  }

  /** Server-sent progress: Ollama's `{status, digest, total, completed}` lines, then a result and `[DONE]`. */
  @Post('pull/stream')
  async pullStream(@Body(body(OllamaModelSchema)) input: OllamaModelRequest, @Res() res: Response): Promise<void> {
    const pull = await this.ollama.pullStream(input.channel_id, input.model_name);
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    res.on('close', () => pull.abort());
    const send = (data: unknown) => res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    let failure: string | undefined;
    try {
      for await (const progress of pull.lines) {
        if (progress.error) failure = progress.error;
        else send(progress);
      }
    } catch (error) {
      failure = (error as Error).message;
    }
    send(failure ? { error: failure } : { message: `Model ${input.model_name} pulled successfully` });
    send('[DONE]');
    res.end();
  }

  @Delete('delete')
  async delete(@Body(body(OllamaModelSchema)) input: OllamaModelRequest) {
    return raw({ success: true, message: await this.ollama.delete(input.channel_id, input.model_name) });
  }

  @Get('version/:id')
  async version(@Param('id') id: string) {
    return { version: await this.ollama.version(channelId(id)) };
  }
}
