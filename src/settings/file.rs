//! Reading a settings file: every key into [`Settings`] as serde derives it, except the
//! store's keys (`store = "KIND:URL"`, and the older `chroma_url` and `pg_url`), which are set
//! aside as the file gave them and then read into the one [`Store`] the settings carry.
//!
//! The keys are set aside by a thin layer between the TOML reader and the derived code, so
//! every other key is read exactly as before: an unknown or mistyped key is still reported by
//! the TOML reader, at its line and column.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use super::{Settings, SettingsError, two_stores, wrong_address};
use crate::spec::store::{Store, StoreKind};

/// The key that names any store as `KIND:URL`.
const STORE_KEY: &str = "store";

/// The store's keys as a settings file gave them.
#[derive(Debug, Default)]
pub(super) struct StoreKeys {
    /// `store = "KIND:URL"`.
    store: Option<String>,
    /// An older key of one store (`chroma_url`, `pg_url`) with its address.
    older: Vec<(StoreKind, String)>,
}

/// Read a settings file's text: the settings (their store still the default) and the store's
/// keys, for [`StoreKeys::store`].
pub(super) fn read(text: &str) -> Result<(Settings, StoreKeys), toml::de::Error> {
    let mut keys = StoreKeys::default();
    let settings = Settings::deserialize(SetAside {
        inner: toml::Deserializer::parse(text)?,
        keys: &mut keys,
    })?;
    Ok((settings, keys))
}

/// The store key `name` is, if it is one: `Some(None)` for `store`, `Some(Some(kind))` for a
/// store's own older key.
fn store_key(name: &str) -> Option<Option<StoreKind>> {
    if name == STORE_KEY {
        return Some(None);
    }
    StoreKind::ALL
        .into_iter()
        .find(|k| k.facts().setting == name)
        .map(Some)
}

impl StoreKeys {
    /// The store the keys name, checked as the settings always were: each older key's address,
    /// then `chroma_url` beside `pg_url`; `store` beside an older key is refused too.
    pub(super) fn store(mut self) -> Result<Store, SettingsError> {
        let rank = |kind: &StoreKind| StoreKind::ALL.iter().position(|k| k == kind);
        self.older.sort_by_key(|(kind, _)| rank(kind));
        let mut older: Vec<Store> = self
            .older
            .into_iter()
            .map(|(kind, url)| kind.at(url))
            .collect();
        for store in &older {
            store.check().map_err(wrong_address)?;
        }
        if older.len() > 1 {
            return Err(two_stores());
        }
        match (self.store, older.pop()) {
            (Some(_), Some(given)) => Err(SettingsError::Invalid {
                name: STORE_KEY,
                why: format!(
                    "set beside {}: name one vector store, in `store` alone",
                    given.facts().setting
                ),
            }),
            (Some(text), None) => Store::parse(&text).map_err(|why| SettingsError::Invalid {
                name: STORE_KEY,
                why,
            }),
            (None, Some(given)) => Ok(given),
            (None, None) => Ok(Store::Embedded),
        }
    }

    /// Keep `value`, given for the store key `key` (see [`store_key`]).
    fn keep(&mut self, key: Option<StoreKind>, value: String) {
        match key {
            None => self.store = Some(value),
            Some(kind) => self.older.push((kind, value)),
        }
    }
}

/// The TOML reader, with the store's keys taken out of the top table into `keys`.
struct SetAside<'k, D> {
    inner: D,
    keys: &'k mut StoreKeys,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for SetAside<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(TopTable {
            visitor,
            keys: self.keys,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let visitor = TopTable {
            visitor,
            keys: self.keys,
        };
        self.inner.deserialize_struct(name, fields, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The derived visitor of [`Settings`], handed the top table without the store's keys.
struct TopTable<'k, V> {
    visitor: V,
    keys: &'k mut StoreKeys,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for TopTable<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(WithoutStoreKeys {
            map,
            keys: self.keys,
        })
    }
}

/// The top table's entries, the store's keys kept aside as they pass.
struct WithoutStoreKeys<'k, A> {
    map: A,
    keys: &'k mut StoreKeys,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for WithoutStoreKeys<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let mut seed = seed;
        loop {
            match self.map.next_key_seed(SortKey(seed))? {
                None => return Ok(None),
                Some(Sorted::Settings(key)) => return Ok(Some(key)),
                Some(Sorted::Store(key, unused)) => {
                    let value: String = self.map.next_value()?;
                    self.keys.keep(key, value);
                    seed = unused;
                }
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// A key read: one of the settings' (as the derived seed read it), or a store key with the
/// derived seed handed back unused.
enum Sorted<K, T> {
    Settings(T),
    Store(Option<StoreKind>, K),
}

/// Reads a key, giving it to the derived seed unless it is a store key. The derived seed reads
/// it inside the TOML reader's key, so its errors carry the key's place in the file.
struct SortKey<K>(K);

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for SortKey<K> {
    type Value = Sorted<K, K::Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, K: DeserializeSeed<'de>> Visitor<'de> for SortKey<K> {
    type Value = Sorted<K, K::Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a setting's name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        match store_key(name) {
            Some(key) => Ok(Sorted::Store(key, self.0)),
            None => self
                .0
                .deserialize(de::value::StrDeserializer::<E>::new(name))
                .map(Sorted::Settings),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store_of(text: &str) -> Result<Store, String> {
        let (_, keys) = read(text).map_err(|e| e.to_string())?;
        keys.store().map_err(|e| e.to_string())
    }

    #[test]
    fn every_key_of_a_store_is_read_into_one_store() {
        assert_eq!(store_of("k = 9"), Ok(Store::Embedded));
        assert_eq!(
            store_of("chroma_url = \"http://h:1\"\nk = 9"),
            Ok(Store::Chroma("http://h:1".into()))
        );
        assert_eq!(
            store_of("pg_url = \"postgresql://u@h/db\""),
            Ok(Store::Pgvector("postgresql://u@h/db".into()))
        );
        assert_eq!(
            store_of("store = \"pgvector:postgresql://u@h/db\""),
            Ok(Store::Pgvector("postgresql://u@h/db".into()))
        );
        assert_eq!(store_of("store = \"embedded\""), Ok(Store::Embedded));
        let (settings, _) = read("k = 9\npg_url = \"postgresql://h/db\"\nbudget = 3").unwrap();
        assert_eq!((settings.k, settings.budget), (9, 3));
    }

    #[test]
    fn two_stores_and_wrong_addresses_are_refused_as_before() {
        let both = "chroma_url = \"http://h:1\"\npg_url = \"postgresql://h/db\"";
        assert_eq!(
            store_of(both).unwrap_err(),
            "setting `pg_url` = set beside chroma_url is out of range: one vector store at a time: Chroma or Postgres"
        );
        let wrong = "chroma_url = \"ftp://u:pw@h\"\npg_url = \"postgresql://h/db\"";
        assert!(store_of(wrong).unwrap_err().starts_with(
            "setting `chroma_url` = Some(\"ftp://u:***@h\") is out of range: an http://"
        ));
        let named_twice = "store = \"embedded\"\npg_url = \"postgresql://h/db\"";
        assert!(
            store_of(named_twice)
                .unwrap_err()
                .contains("set beside pg_url")
        );
        assert!(
            store_of("store = \"chroma\"")
                .unwrap_err()
                .contains("setting `store`: chroma: needs the server's address")
        );
    }

    #[test]
    fn other_keys_are_still_refused_at_their_place() {
        let message = store_of("k = 9\nkk = 2\n").unwrap_err();
        assert!(
            message.contains("line 2") && message.contains("unknown field `kk`"),
            "{message}"
        );
        let message = store_of("pg_url = 5\n").unwrap_err();
        assert!(
            message.contains("line 1") && message.contains("invalid type"),
            "{message}"
        );
    }
}
