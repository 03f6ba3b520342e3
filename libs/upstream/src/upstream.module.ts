import { Global, Module } from '@nestjs/common';
import { OptionModule } from '@gw/option';
import { UpstreamClient } from './upstream.client.js';

/** Provides the shared UpstreamClient (one connection pool for the whole process); AllowPrivateOutboundUrls comes from the options. */
@Global()
@Module({ imports: [OptionModule], providers: [UpstreamClient], exports: [UpstreamClient] })
export class UpstreamModule {}
