//! The canonical form of a state: its serde data model as a JSON value. It exists because
//! `serde_json::to_value` refuses maps whose keys are not strings (the network's channels
//! are keyed by `(src, dst, responses)`, the ghost's writes by `TxnTag`), and a digest and a
//! diff both need one tree that any serde type turns into. Non-string keys become the
//! compact JSON text of the key, so two states have the same canonical form exactly when
//! their serde data is the same. Every map of the model is a `BTreeMap`, so the order of
//! entries is fixed too.

use serde::ser::{self, Serialize};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Why a value has no canonical form (a number JSON cannot hold, or a custom `Serialize`
/// that failed).
#[derive(Debug)]
pub struct CanonicalError(String);

impl fmt::Display for CanonicalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CanonicalError {}

impl ser::Error for CanonicalError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        CanonicalError(msg.to_string())
    }
}

/// The canonical JSON form of any serialisable value.
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, CanonicalError> {
    value.serialize(Canonical)
}

/// The serializer: the serde data model into a JSON tree, as serde_json would write it,
/// except that map keys may be of any type.
struct Canonical;

type Res = Result<Value, CanonicalError>;

fn tagged(variant: &str, value: Value) -> Value {
    let mut map = Map::new();
    map.insert(variant.to_string(), value);
    Value::Object(map)
}

fn key_text(key: Value) -> String {
    match key {
        Value::String(s) => s,
        other => other.to_string(),
    }
}

impl ser::Serializer for Canonical {
    type Ok = Value;
    type Error = CanonicalError;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = VariantSeq;
    type SerializeMap = MapState;
    type SerializeStruct = MapState;
    type SerializeStructVariant = VariantMap;

    fn serialize_bool(self, v: bool) -> Res {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Res {
        Ok(Value::from(v))
    }
    fn serialize_i16(self, v: i16) -> Res {
        Ok(Value::from(v))
    }
    fn serialize_i32(self, v: i32) -> Res {
        Ok(Value::from(v))
    }
    fn serialize_i64(self, v: i64) -> Res {
        Ok(Value::from(v))
    }
    fn serialize_u8(self, v: u8) -> Res {
        Ok(Value::from(v))
    }
    fn serialize_u16(self, v: u16) -> Res {
        Ok(Value::from(v))
    }
    fn serialize_u32(self, v: u32) -> Res {
        Ok(Value::from(v))
    }
    fn serialize_u64(self, v: u64) -> Res {
        Ok(Value::from(v))
    }
    fn serialize_f32(self, v: f32) -> Res {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Res {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| CanonicalError(format!("{v} has no JSON form")))
    }
    fn serialize_char(self, v: char) -> Res {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Res {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Res {
        Ok(Value::Array(v.iter().map(|b| Value::from(*b)).collect()))
    }
    fn serialize_none(self) -> Res {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Res {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Res {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Res {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(self, _name: &'static str, _i: u32, variant: &'static str) -> Res {
        Ok(Value::String(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, v: &T) -> Res {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        value: &T,
    ) -> Res {
        Ok(tagged(variant, value.serialize(Canonical)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, CanonicalError> {
        Ok(Seq(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, CanonicalError> {
        Ok(Seq(Vec::with_capacity(len)))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Seq, CanonicalError> {
        Ok(Seq(Vec::with_capacity(len)))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantSeq, CanonicalError> {
        Ok(VariantSeq(variant, Vec::with_capacity(len)))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<MapState, CanonicalError> {
        Ok(MapState(Map::new(), None))
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<MapState, CanonicalError> {
        Ok(MapState(Map::new(), None))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<VariantMap, CanonicalError> {
        Ok(VariantMap(variant, Map::new()))
    }
}

/// A sequence, tuple or tuple struct being built.
struct Seq(Vec<Value>);

impl ser::SerializeSeq for Seq {
    type Ok = Value;
    type Error = CanonicalError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), CanonicalError> {
        self.0.push(v.serialize(Canonical)?);
        Ok(())
    }
    fn end(self) -> Res {
        Ok(Value::Array(self.0))
    }
}

impl ser::SerializeTuple for Seq {
    type Ok = Value;
    type Error = CanonicalError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), CanonicalError> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Res {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Seq {
    type Ok = Value;
    type Error = CanonicalError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), CanonicalError> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Res {
        ser::SerializeSeq::end(self)
    }
}

/// A tuple variant being built: `{"Variant": [..]}`.
struct VariantSeq(&'static str, Vec<Value>);

impl ser::SerializeTupleVariant for VariantSeq {
    type Ok = Value;
    type Error = CanonicalError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), CanonicalError> {
        self.1.push(v.serialize(Canonical)?);
        Ok(())
    }
    fn end(self) -> Res {
        Ok(tagged(self.0, Value::Array(self.1)))
    }
}

/// A map or struct being built, with the key waiting for its value.
struct MapState(Map<String, Value>, Option<String>);

impl ser::SerializeMap for MapState {
    type Ok = Value;
    type Error = CanonicalError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), CanonicalError> {
        self.1 = Some(key_text(key.serialize(Canonical)?));
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), CanonicalError> {
        let key = self
            .1
            .take()
            .ok_or_else(|| CanonicalError("a map value without its key".into()))?;
        self.0.insert(key, v.serialize(Canonical)?);
        Ok(())
    }
    fn end(self) -> Res {
        Ok(Value::Object(self.0))
    }
}

impl ser::SerializeStruct for MapState {
    type Ok = Value;
    type Error = CanonicalError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), CanonicalError> {
        self.0.insert(key.to_string(), v.serialize(Canonical)?);
        Ok(())
    }
    fn end(self) -> Res {
        Ok(Value::Object(self.0))
    }
}

/// A struct variant being built: `{"Variant": {..}}`.
struct VariantMap(&'static str, Map<String, Value>);

impl ser::SerializeStructVariant for VariantMap {
    type Ok = Value;
    type Error = CanonicalError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), CanonicalError> {
        self.1.insert(key.to_string(), v.serialize(Canonical)?);
        Ok(())
    }
    fn end(self) -> Res {
        Ok(tagged(self.0, Value::Object(self.1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn agrees_with_serde_json_where_serde_json_can() {
        let mut map = BTreeMap::new();
        map.insert("b", vec![Some(1u8), None]);
        map.insert("a", vec![]);
        assert_eq!(to_value(&map).unwrap(), serde_json::to_value(&map).unwrap());
    }

    #[test]
    fn non_string_keys_become_their_json_text() {
        let mut map = BTreeMap::new();
        map.insert((1u8, false), "x");
        let v = to_value(&map).unwrap();
        assert_eq!(v, serde_json::json!({"[1,false]": "x"}));
    }
}
