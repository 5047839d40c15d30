/** `@tollgate/codecs/bedrock-converse`: the Amazon Bedrock Converse codec alone (`bedrock_converse`). */
export { bedrockConverseCodec } from '../bedrock-converse/index.js';
