"""The `reference="transformers"` call path of `BertTokenizer`: transformers'
pure-Python `tokenize` (added tokens), `truncate_sequences` and `pad`
(`BertTokenizerLegacy`)."""

from __future__ import annotations

from .encoding import BatchEncoding


class LegacyEncoding:
    """`BertTokenizerLegacy`'s tokenize, truncation, padding and output layout."""

    # --------------------------------------------------- legacy-mode path
    def _legacy_tokenize(self, text, split_special=None):
        """BertTokenizerLegacy.tokenize: added-token trie split, then basic + WordPiece."""
        if split_special is None:
            split_special = self.split_special_tokens
        if split_special:  # transformers: no added token matched, `_tokenize` on the whole text
            return self._legacy_plain_tokenize(text)
        if not self._matcher:
            return self._wordpiece.tokenize(text) if self._wordpiece is not None else self._core.tokenize(text)
        pieces, glued = self._legacy_pieces(text)
        out, added = [], self._added
        for i, piece in enumerate(pieces):
            if piece in added:
                out.append(piece)
            elif i in glued:  # holds a special token as plain text: transformers' never_split applies
                out.extend(self._legacy_plain_tokenize(piece))
            elif piece:
                out.extend(self._wordpiece.tokenize(piece) if self._wordpiece is not None
                           else self._core.tokenize(piece))
        return out

    def _legacy_plain_tokenize(self, text):
        """BertTokenizerLegacy._tokenize: basic tokenization keeping the special tokens whole
        (never_split), then WordPiece but for the constructor's never_split words."""
        if self._wordpiece is not None:
            return self._wordpiece.tokenize(text)
        basic, wordpiece = self._engine.legacy_split_tokenizers()
        keep = set(self.never_split or ())
        return [t for word in basic.tokenize(text, self.all_special_tokens)
                for t in ([word] if word in keep else wordpiece.tokenize(word))]

    def _legacy_pieces(self, text):
        """transformers' PreTrainedTokenizer.tokenize before `_tokenize`: the text cut at the
        added tokens, then each added token's rstrip, lstrip and single_word applied to its
        neighbouring pieces, in that order and left to right, as there. A single_word token
        next to a piece not ending (starting) with a space is glued to that piece and so
        tokenized as plain text, but the text stays cut on its other side (`xab cd|Москва`:
        the next word starts anew). Returns the pieces and the indices of those a token was
        glued to."""
        pieces, pos = [], 0
        for start, end, _ in self._matcher.finditer(text):
            if start > pos:
                pieces.append(text[pos:start])
            pieces.append(text[start:end])
            pos = end
        if pos < len(text):
            pieces.append(text[pos:])
        added, last, glued = self._added, len(pieces) - 1, set()
        for i, piece in enumerate(pieces):  # (reads the pieces as changed by the earlier steps, as there)
            if piece not in added:
                continue
            token = added[piece][1]
            left = pieces[i - 1] if i > 0 else None
            right = pieces[i + 1] if i < last else None
            if token.rstrip and right:
                pieces[i + 1] = right.lstrip()
            if token.lstrip and left:
                pieces[i - 1] = left.rstrip()
            if token.single_word:  # (tested on the neighbours as they were before the stripping, as there)
                if left and left[-1] != " ":
                    pieces[i - 1] += piece
                    pieces[i] = ""
                    glued.add(i - 1)
                elif right and right[0] != " ":
                    pieces[i + 1] = piece + pieces[i + 1]
                    pieces[i] = ""
                    glued.add(i + 1)
        return pieces, glued

    def _legacy_ids(self, text, is_split_into_words, split_special):
        if is_split_into_words and not isinstance(text, str):  # (a str: one side of a tuple read as a pair)
            return self.convert_tokens_to_ids([t for w in text for t in self._legacy_tokenize(w, split_special)])
        return self.convert_tokens_to_ids(self._legacy_tokenize(text, split_special))

    def _legacy_truncate(self, ids, pair_ids, num_tokens_to_remove, strategy, stride):
        """transformers' PythonBackend.truncate_sequences."""
        if num_tokens_to_remove <= 0:
            return ids, pair_ids, []
        overflowing = []
        if strategy == "only_first" or (strategy == "longest_first" and pair_ids is None):
            window_len = min(len(ids), stride + num_tokens_to_remove)
            if self.truncation_side == "left":
                overflowing = ids[:window_len]
                ids = ids[num_tokens_to_remove:]
            else:
                overflowing = ids[-window_len:]
                ids = ids[:-num_tokens_to_remove]
        elif strategy == "longest_first":
            len_ids, len_pair = len(ids), len(pair_ids) if pair_ids else 0
            first_remove = min(abs(len_pair - len_ids), num_tokens_to_remove)
            second_remove = num_tokens_to_remove - first_remove
            if len_ids > len_pair:
                ids_to_move = first_remove + second_remove // 2
                pair_ids_to_move = second_remove - second_remove // 2
            else:
                ids_to_move = second_remove // 2
                pair_ids_to_move = first_remove + second_remove - (second_remove // 2)
            if self.truncation_side == "right":
                ids = ids[:-ids_to_move] if ids_to_move > 0 else ids
                pair_ids = pair_ids[:-pair_ids_to_move] if pair_ids and pair_ids_to_move > 0 else pair_ids
            else:
                ids = ids[ids_to_move:]
                pair_ids = pair_ids[pair_ids_to_move:] if pair_ids else None
        elif strategy == "only_second" and pair_ids:
            window_len = min(len(pair_ids), stride + num_tokens_to_remove)
            if self.truncation_side == "right":
                overflowing = pair_ids[-window_len:]
                pair_ids = pair_ids[:-num_tokens_to_remove]
            else:
                overflowing = pair_ids[:window_len]
                pair_ids = pair_ids[num_tokens_to_remove:]
        return ids, pair_ids, overflowing

    def _legacy_pad(self, enc, target, padding_side, return_attention_mask):
        """transformers' _pad (one example) to `target` (None: no padding)."""
        n = len(enc["input_ids"])
        if return_attention_mask and "attention_mask" not in enc:
            enc["attention_mask"] = [1] * n
        if target is None or target <= n:
            return enc
        d = target - n
        right = padding_side == "right"

        def pad(values, fill):
            return values + [fill] * d if right else [fill] * d + values

        if return_attention_mask:
            enc["attention_mask"] = pad(enc["attention_mask"], 0)
        if "token_type_ids" in enc:
            enc["token_type_ids"] = pad(enc["token_type_ids"], self.pad_token_type_id)
        if "special_tokens_mask" in enc:
            enc["special_tokens_mask"] = pad(enc["special_tokens_mask"], 1)
        enc["input_ids"] = pad(enc["input_ids"], self._special_id("pad_token"))
        return enc

    def _call_legacy(self, batched, items, *, add_special_tokens, padding_strategy, truncation_strategy, max_length,
                     stride, is_split_into_words, pad_to_multiple_of, padding_side, return_tensors,
                     return_token_type_ids, return_attention_mask, return_overflowing_tokens,
                     return_special_tokens_mask, return_offsets_mapping, return_length, split_special):
        # (split_special is passed down, never set on the tokenizer: calls may run on many threads)
        encoded = [(self._legacy_ids(a, is_split_into_words, split_special),
                    self._legacy_ids(b, is_split_into_words, split_special) if b is not None else None)
                   for a, b in items]
        if return_token_type_ids is None:
            return_token_type_ids = False  # BertTokenizerLegacy.model_input_names: input_ids, attention_mask
        want_mask = True if return_attention_mask is None else return_attention_mask
        outs = []
        for ids, pair_ids in encoded:
            if return_overflowing_tokens and truncation_strategy == "longest_first" and pair_ids is not None:
                raise ValueError(
                    "Not possible to return overflowing tokens for pair of sequences with the `longest_first`. "
                    "Please select another truncation strategy than `longest_first`, for instance `only_second` or "
                    "`only_first`.")
            pair = pair_ids is not None
            num_special = (3 if pair else 2) if add_special_tokens else 0
            total_len = len(ids) + len(pair_ids or []) + num_special
            overflowing = []
            if truncation_strategy != "do_not_truncate" and max_length and total_len > max_length:
                ids, pair_ids, overflowing = self._legacy_truncate(ids, pair_ids, total_len - max_length,
                                                                   truncation_strategy, stride)
            if add_special_tokens:
                seq = self.build_inputs_with_special_tokens(ids, pair_ids)
                types = self.create_token_type_ids_from_sequences(ids, pair_ids)
            else:
                seq = ids + (pair_ids if pair_ids else [])
                types = [0] * len(seq)
            enc = {"input_ids": seq}
            if return_token_type_ids:
                enc["token_type_ids"] = types
            if return_special_tokens_mask:
                enc["special_tokens_mask"] = (self.get_special_tokens_mask(ids, pair_ids) if add_special_tokens
                                              else [0] * len(seq))
            if return_overflowing_tokens and not return_tensors and overflowing:
                enc["overflowing_tokens"] = overflowing
                enc["num_truncated_tokens"] = total_len - max_length if max_length else 0
            outs.append(enc)
        if not batched:
            enc = outs[0]
            # transformers' `pad` returns an empty single input unpadded
            if (padding_strategy != "do_not_pad" or want_mask) and enc["input_ids"]:
                target = None
                if padding_strategy == "longest":
                    target = len(enc["input_ids"])
                elif padding_strategy == "max_length":
                    target = max_length
                if target is not None and pad_to_multiple_of and target % pad_to_multiple_of:
                    target = (target // pad_to_multiple_of + 1) * pad_to_multiple_of
                self._legacy_pad(enc, target, padding_side, want_mask)
            elif want_mask:
                enc["attention_mask"] = [1] * len(enc["input_ids"])
            if return_length:
                enc["length"] = len(enc["input_ids"])
            return BatchEncoding(enc, None, tensor_type=return_tensors, prepend_batch_axis=True)
        for enc in outs:
            if return_length:
                enc["length"] = len(enc["input_ids"])
        if return_tensors and return_overflowing_tokens:
            for enc in outs:
                enc.pop("overflowing_tokens", None)
                enc.pop("num_truncated_tokens", None)
        if any("overflowing_tokens" in e for e in outs):
            # transformers' batch `pad` fails (AssertionError) when only some rows overflow: fill the others
            for enc in outs:
                enc.setdefault("overflowing_tokens", [])
                enc.setdefault("num_truncated_tokens", 0)
        target = None
        if padding_strategy == "longest":
            target = max((len(e["input_ids"]) for e in outs), default=0)
        elif padding_strategy == "max_length":
            target = max_length
        if target is not None and pad_to_multiple_of and target % pad_to_multiple_of:
            target = (target // pad_to_multiple_of + 1) * pad_to_multiple_of
        for enc in outs:
            self._legacy_pad(enc, target, padding_side, want_mask)
        data = {}
        for enc in outs:
            for key, value in enc.items():
                data.setdefault(key, []).append(value)
        if not outs:
            data = {"input_ids": []}
            if want_mask:
                data["attention_mask"] = []
        return BatchEncoding(data, None, tensor_type=return_tensors)
