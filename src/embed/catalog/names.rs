//! How catalog models are named and measured where fastembed says nothing: the short names users
//! type, the window each model reads, and the close names offered for a typo.

/// The short name of a catalog model: the repository's name without an `-onnx` (or `-onnx-Q`)
/// ending, plus `-q` for a quantized variant (fastembed's enum name ends in `Q`) or `-q4`.
pub(super) fn short_name(model_code: &str, fastembed_name: &str) -> String {
    let repo = model_code.rsplit('/').next().unwrap_or(model_code);
    let lower = repo.to_lowercase();
    let base = ["-onnx-q", "-onnx"]
        .iter()
        .find(|end| lower.ends_with(*end))
        .map_or(repo, |end| &repo[..repo.len() - end.len()]);
    let suffix = if fastembed_name.ends_with("Q4") {
        "-q4"
    } else if fastembed_name.ends_with('Q') {
        "-q"
    } else {
        ""
    };
    format!("{base}{suffix}")
}

/// Tokens a catalog model reads, special tokens included. fastembed does not say (it caps every
/// model at 512), so this table does: the length each model was trained for, from its
/// sentence-transformers configuration or model card. At load time the smaller of this and the
/// limit the model's own files state is used.
pub fn window_of(fastembed_name: &str) -> usize {
    let base = fastembed_name
        .strip_suffix("Q4")
        .or_else(|| fastembed_name.strip_suffix('Q'))
        .unwrap_or(fastembed_name);
    match base {
        "AllMiniLML6V2" => 256,
        "AllMiniLML12V2" | "ParaphraseMLMiniLML12V2" | "ParaphraseMLMpnetBaseV2" => 128,
        "AllMpnetBaseV2" => 384,
        "ClipVitB32" => 77,
        "EmbeddingGemma300M" | "SnowflakeArcticEmbedMLong" => 2048,
        "BGEM3"
        | "NomicEmbedTextV1"
        | "NomicEmbedTextV15"
        | "ModernBertEmbedLarge"
        | "GTEBaseENV15"
        | "GTELargeENV15"
        | "JinaEmbeddingsV2BaseCode"
        | "JinaEmbeddingsV2BaseEN"
        | "BGERerankerV2M3"
        | "JINARerankerV1TurboEn" => 8192,
        "JINARerankerV2BaseMultilingual" => 1024,
        // BGE v1.5, multilingual E5, mxbai, Snowflake arctic, bge-reranker-base, and any model a
        // later fastembed adds: BERT's 512 (the limit in the model's own files still applies).
        _ => 512,
    }
}

/// Up to five names close to `typed`: those that contain it (or that it contains), then those
/// within a few edits, closest first.
pub(super) fn suggestions<'a>(names: impl Iterator<Item = &'a str>, typed: &str) -> Vec<String> {
    let typed = typed.trim().to_lowercase();
    let typed = typed.strip_prefix("fastembed:").unwrap_or(&typed);
    if typed.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(usize, &str)> = names
        .filter_map(|name| {
            let lower = name.to_lowercase();
            let distance = strsim::levenshtein(&lower, typed);
            if lower.contains(typed) || typed.contains(&lower) {
                Some((0, name))
            } else if distance <= (typed.len() / 4).max(2) {
                Some((distance, name))
            } else {
                None
            }
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(5)
        .map(|(_, n)| n.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_drop_onnx_and_mark_quantized_variants() {
        assert_eq!(
            short_name("Qdrant/all-MiniLM-L6-v2-onnx", "AllMiniLML6V2"),
            "all-MiniLM-L6-v2"
        );
        assert_eq!(
            short_name("Qdrant/bge-small-en-v1.5-onnx-Q", "BGESmallENV15Q"),
            "bge-small-en-v1.5-q"
        );
        assert_eq!(
            short_name(
                "onnx-community/embeddinggemma-300m-ONNX",
                "EmbeddingGemma300MQ4"
            ),
            "embeddinggemma-300m-q4"
        );
        assert_eq!(
            short_name("jinaai/jina-reranker-v1-turbo-en", "JINARerankerV1TurboEn"),
            "jina-reranker-v1-turbo-en"
        );
    }
}
