import { Injectable } from '@nestjs/common';
import { ChannelRouter } from '@gw/channel';
import { endpointTypesOfModel, type EndpointType, type ExprRequest } from '@gw/contracts';
import { OptionService } from '@gw/option';
import { AUTO_GROUP, autoGroupsOf } from '@gw/user';
import { RelayPricing, type RelayCaller } from './ports.js';
import { RelayError } from './relay-error.js';

/** new-api's fixed `created` of listed models. */
const MODEL_CREATED = 1626777600;
/** A model billed by its expression is priced whatever the request: listed as any priced model. */
const LISTING: ExprRequest = { param: () => null, header: () => '' };

export interface OpenAiModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  /** new-api's extension: the APIs the model can be called through (openai, anthropic, gemini, ...). */
  supported_endpoint_types: EndpointType[];
}

/**
 * The models a caller may use (GET /v1/models): the token's model limits when enabled, otherwise the
 * models with an enabled channel in the using group (for `auto`, in any of the user's auto groups). Models without a price are left out unless
 * unset models are accepted (self-use mode or the user's setting), as they could not be called.
 */
@Injectable()
export class ModelList {
  constructor(
    private readonly router: ChannelRouter,
    private readonly pricing: RelayPricing,
    private readonly options: OptionService,
  ) {}

  list(caller: RelayCaller): OpenAiModel[] {
    const group = caller.requestedGroup || caller.userGroup;
    const groups = group === AUTO_GROUP ? autoGroupsOf(this.options, caller.userGroup) : [group];
    const names = caller.modelLimits ? [...caller.modelLimits] : this.router.modelsForGroups(groups);
    const acceptUnset = caller.acceptUnsetModelRatioModel || this.options.get('SelfUseModeEnabled');
    return names
      .filter((name) => acceptUnset || this.pricing.resolve(name, group, caller.userGroup, LISTING) !== undefined)
      .map((id) => ({
        id,
        object: 'model',
        created: MODEL_CREATED,
        owned_by: 'custom',
        supported_endpoint_types: endpointTypesOfModel(this.router.channelTypesForModel(id), id),
      }));
  }

  get(caller: RelayCaller, id: string): OpenAiModel {
    const model = this.list(caller).find((m) => m.id === id);
    if (!model) throw new RelayError(`the model '${id}' does not exist`, 404, 'model_not_found', 'invalid_request_error');
    return model;
  }
}
