/** `@tollgate/codecs/gemini`: the Gemini `generateContent` codec alone (`gemini_generate_content`). */
export { geminiCodec } from '../gemini/index.js';
