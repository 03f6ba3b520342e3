import { Global, Module } from '@nestjs/common';
import { UpstreamClient } from './upstream.client.js';

/** Provides the shared UpstreamClient (one connection pool for the whole process). */
@Global()
@Module({ providers: [UpstreamClient], exports: [UpstreamClient] })
export class UpstreamModule {}
