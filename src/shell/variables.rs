//! The variables a line assigns literal values, scalars and indexed arrays, as bash keeps
//! them: `$a` is `${a[0]}`, `a=v` sets element 0 and leaves the others, `a[1]=v` sets one.
//! Anything not known is absent, never guessed: a lookup of it answers `None`.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// An indexed array's elements by index (bash's arrays may have gaps).
pub(super) type Elements = BTreeMap<usize, String>;

/// Most elements an array may have to be remembered.
pub(super) const MAX_ELEMENTS: usize = 256;

/// The line's variables whose values are known. Cloned for each subshell (`Analyser::
/// shell_state`): the maps are shared until one side changes.
#[derive(Debug, Default, Clone)]
pub(super) struct Variables {
    /// What `$name` gives: the value, or an array's element 0.
    scalars: Rc<HashMap<String, String>>,
    /// Arrays whose every element is known.
    arrays: Rc<HashMap<String, Elements>>,
    /// An associative array was declared in the line (`declare -A`): `m=(0 /)` is then a key
    /// and its value, not two elements, so no array is known after it.
    associative: bool,
}

impl Variables {
    /// `$name`'s value, when known.
    pub fn get(&self, name: &str) -> Option<&String> {
        self.scalars.get(name)
    }

    /// `name=value`: element 0 of an array, whose other elements stay.
    pub fn insert(&mut self, name: String, value: String) {
        if self.arrays.contains_key(&name)
            && let Some(elements) = Rc::make_mut(&mut self.arrays).get_mut(&name)
        {
            elements.insert(0, value.clone());
        }
        Rc::make_mut(&mut self.scalars).insert(name, value);
    }

    /// Forgets `name`'s value and its elements.
    pub fn remove(&mut self, name: &str) {
        drop_key(&mut self.scalars, name);
        drop_key(&mut self.arrays, name);
    }

    /// Forgets every variable.
    pub fn clear(&mut self) {
        self.scalars = Rc::default();
        self.arrays = Rc::default();
    }

    /// Whether both are one: the same shared maps (a cheap test; `same_as` compares values).
    pub fn is(&self, other: &Variables) -> bool {
        Rc::ptr_eq(&self.scalars, &other.scalars)
            && Rc::ptr_eq(&self.arrays, &other.arrays)
            && self.associative == other.associative
    }

    /// Whether both hold the same variables with the same values.
    pub fn same_as(&self, other: &Variables) -> bool {
        (Rc::ptr_eq(&self.scalars, &other.scalars) || self.scalars == other.scalars)
            && (Rc::ptr_eq(&self.arrays, &other.arrays) || self.arrays == other.arrays)
    }

    /// Keeps only what is the same as in `before`: after a pipeline's last stage, which bash
    /// runs in a subshell and zsh (or bash with `lastpipe`) in the shell itself, a variable
    /// it set or changed may hold either value.
    pub fn keep_unchanged_since(&mut self, before: &Variables) {
        if !Rc::ptr_eq(&self.scalars, &before.scalars) {
            Rc::make_mut(&mut self.scalars).retain(|k, v| before.scalars.get(k) == Some(v));
        }
        if !Rc::ptr_eq(&self.arrays, &before.arrays) {
            Rc::make_mut(&mut self.arrays).retain(|k, v| before.arrays.get(k) == Some(v));
        }
    }

    /// Puts back a value saved from `get` (a runner's assignments undone after its script):
    /// the array the name may have held is not known any more.
    pub fn restore(&mut self, name: String, value: Option<String>) {
        drop_key(&mut self.arrays, &name);
        match value {
            Some(v) => {
                Rc::make_mut(&mut self.scalars).insert(name, v);
            }
            None => drop_key(&mut self.scalars, &name),
        }
    }

    /// `name` as it is in `before`: a function's local variable gone when the call returns.
    pub fn restore_from(&mut self, name: &str, before: &Variables) {
        match before.scalars.get(name) {
            Some(v) if self.scalars.get(name) != Some(v) => {
                Rc::make_mut(&mut self.scalars).insert(name.to_string(), v.clone());
            }
            Some(_) => {}
            None => drop_key(&mut self.scalars, name),
        }
        match before.arrays.get(name) {
            Some(e) if self.arrays.get(name) != Some(e) => {
                Rc::make_mut(&mut self.arrays).insert(name.to_string(), e.clone());
            }
            Some(_) => {}
            None => drop_key(&mut self.arrays, name),
        }
    }

    /// From here on no array is known (`declare -A`, or options not known).
    pub fn forget_arrays(&mut self) {
        self.associative = true;
        self.arrays = Rc::default();
    }

    /// `name=(…)` (`append`: `name+=(…)`) with every element known, or `None` when one is
    /// not.
    pub fn set_array(&mut self, name: &str, elements: Option<Vec<String>>, append: bool) {
        let base = if append {
            self.arrays.get(name).cloned()
        } else {
            Some(Elements::new())
        };
        let joined = base.zip(elements).and_then(|(mut all, new)| {
            let next = all.keys().next_back().map_or(0, |k| k + 1);
            all.extend((next..).zip(new));
            (all.len() <= MAX_ELEMENTS && !self.associative).then_some(all)
        });
        match joined {
            Some(all) => {
                match all.get(&0) {
                    Some(first) => {
                        Rc::make_mut(&mut self.scalars).insert(name.to_string(), first.clone())
                    }
                    None if append => {
                        drop_key(&mut self.scalars, name);
                        None
                    }
                    // A new array without element 0: `$name` is empty.
                    None => Rc::make_mut(&mut self.scalars).insert(name.to_string(), String::new()),
                };
                Rc::make_mut(&mut self.arrays).insert(name.to_string(), all);
            }
            None => self.remove(name),
        }
    }

    /// `name[index]=value`: `index` as written, `value` `None` when not known. An index that is
    /// not a plain number may be 0: then nothing of `name` is known.
    pub fn set_element(&mut self, name: &str, index: &str, value: Option<String>) {
        let Some(i) = literal_index(index) else {
            self.remove(name);
            return;
        };
        if i == 0 {
            match &value {
                Some(v) => Rc::make_mut(&mut self.scalars).insert(name.to_string(), v.clone()),
                None => {
                    drop_key(&mut self.scalars, name);
                    None
                }
            };
        }
        if !self.arrays.contains_key(name) {
            return;
        }
        match (Rc::make_mut(&mut self.arrays).get_mut(name), value) {
            (Some(elements), Some(v))
                if elements.len() < MAX_ELEMENTS || elements.contains_key(&i) =>
            {
                elements.insert(i, v);
            }
            (Some(_), _) => drop_key(&mut self.arrays, name),
            (None, _) => {}
        }
    }

    /// `${name[index]}`: `Some(Some(v))` set, `Some(None)` not set, `None` not known. Element
    /// 0 of a name not known as an array is `$name`.
    pub fn element(&self, name: &str, index: &str) -> Option<Option<String>> {
        let i = literal_index(index)?;
        match self.arrays.get(name) {
            Some(elements) => Some(elements.get(&i).cloned()),
            None if i == 0 => self.scalars.get(name).cloned().map(Some),
            None => None,
        }
    }

    /// Every element of `name`, in order, when all are known.
    pub fn elements(&self, name: &str) -> Option<Vec<&str>> {
        self.arrays
            .get(name)
            .map(|e| e.values().map(String::as_str).collect())
    }
}

/// Removes `name` from a shared map, copying the map only when `name` is in it.
fn drop_key<V: Clone>(map: &mut Rc<HashMap<String, V>>, name: &str) {
    if map.contains_key(name) {
        Rc::make_mut(map).remove(name);
    }
}

/// An index written as a plain decimal number (`07` is octal to bash: not taken).
fn literal_index(index: &str) -> Option<usize> {
    let t = index.trim();
    let plain =
        !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) && (t == "0" || !t.starts_with('0'));
    plain.then(|| t.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Option<Vec<String>> {
        Some(w.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn a_scalar_is_element_zero_and_its_assignment_keeps_the_rest() {
        let mut v = Variables::default();
        v.set_array("a", words(&["/", "build"]), false);
        assert_eq!(v.get("a").unwrap(), "/");
        v.insert("a".into(), "x".into());
        assert_eq!(v.element("a", "0"), Some(Some("x".into())));
        assert_eq!(v.element("a", "1"), Some(Some("build".into())));
        assert_eq!(v.element("a", "2"), Some(None));
        // An element past 0 leaves `$a` as it was.
        v.set_element("a", "1", Some("/".into()));
        assert_eq!(v.get("a").unwrap(), "x");
        v.set_element("a", "0", Some("/".into()));
        assert_eq!(v.get("a").unwrap(), "/");
    }

    #[test]
    fn an_element_of_a_scalar_is_known_only_at_zero() {
        let mut v = Variables::default();
        v.insert("a".into(), "/".into());
        v.set_element("a", "1", Some("build".into()));
        assert_eq!(v.get("a").unwrap(), "/");
        assert_eq!(v.element("a", "0"), Some(Some("/".into())));
        assert_eq!(v.element("a", "1"), None);
        // An index that may be 0 forgets it.
        v.set_element("a", "i", Some("build".into()));
        assert!(v.get("a").is_none());
        v.insert("a".into(), "/".into());
        v.set_element("a", "010", Some("b".into()));
        assert!(v.get("a").is_none());
    }

    #[test]
    fn appends_unknowns_and_associative_arrays() {
        let mut v = Variables::default();
        v.set_array("a", words(&["x"]), false);
        v.set_array("a", words(&["/"]), true);
        assert_eq!(v.elements("a").unwrap(), ["x", "/"]);
        v.set_array("a", None, true);
        assert!(v.elements("a").is_none() && v.get("a").is_none());
        // Appending to an array not known: not known.
        v.set_array("b", words(&["/"]), true);
        assert!(v.elements("b").is_none());
        v.set_array("c", words(&["0", "/"]), false);
        v.forget_arrays();
        assert!(v.elements("c").is_none());
        v.set_array("d", words(&["0", "/"]), false);
        assert!(v.elements("d").is_none() && v.get("d").is_none());
        v.set_array("e", Some(vec!["x".into(); MAX_ELEMENTS + 1]), false);
        assert!(v.elements("e").is_none());
    }
}
