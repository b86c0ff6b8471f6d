//! The words forms speak, in the languages the form kinds and the input
//! roles know: English, German, French, Spanish, Italian, Portuguese,
//! Dutch and Russian (and a few search words of others).
//!
//! A word of three letters or fewer matches a whole word of the text; a
//! longer one (or a phrase) matches anywhere in it, so that a stem finds
//! its inflections ("abonn" in "abonnieren", "abonnez").

/// Whether a text (lower case, white space collapsed) says one of the words.
pub fn says(text: &str, words: &[&str]) -> bool {
    words.iter().any(|w| {
        if w.chars().count() <= 3 {
            tokens(text).any(|t| t == *w)
        } else {
            text.contains(w)
        }
    })
}

pub use crate::words::tokens;

/// A text as [`says`] reads it: camel case split, lower case, one space
/// between words.
pub fn normalized(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_uppercase() && prev_lower {
            out.push(' ');
        }
        prev_lower = c.is_lowercase();
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out.trim().to_string()
}

pub const SEARCH: &[&str] = &[
    "search",
    "find",
    "query",
    "keyword",
    "lookup",
    "look up", // en
    "suche",
    "suchen",
    "suchbegriff",
    "stichwort",
    "finden", // de
    "recherche",
    "rechercher",
    "chercher",
    "mot clé",
    "mots clés", // fr
    "buscar",
    "búsqueda",
    "busqueda",
    "buscador", // es
    "cerca",
    "ricerca",
    "cercare", // it
    "pesquisa",
    "pesquisar",
    "procurar",
    "busca", // pt
    "zoeken",
    "zoek",
    "zoekterm", // nl
    "поиск",
    "найти",
    "искать", // ru
    "szukaj",
    "hledat",
    "sök",
    "haku",
    "arama",
    "検索",
    "搜索",
    "搜尋",
    "검색",
];

pub const LOGIN: &[&str] = &[
    "login",
    "log in",
    "log on",
    "logon",
    "signin",
    "sign in", // en
    "anmelden",
    "einloggen",
    "anmeldung", // de
    "connexion",
    "se connecter",
    "identifiant", // fr
    "iniciar sesión",
    "iniciar sesion",
    "ingresar",
    "acceder", // es
    "accedi",
    "accesso",  // it
    "entrar",   // pt
    "inloggen", // nl
    "войти",
    "вход", // ru
    "zaloguj",
    "ログイン",
    "登录",
    "登入",
    "로그인",
];

pub const REGISTRATION: &[&str] = &[
    "register",
    "registration",
    "sign up",
    "signup",
    "create account",
    "create an account",
    "join now", // en
    "registrieren",
    "registrierung",
    "konto erstellen", // de
    "inscription",
    "inscrire",
    "créer un compte", // fr
    "registrarse",
    "registro",
    "crear cuenta", // es
    "registrati",
    "registrazione", // it
    "cadastro",
    "cadastrar",
    "criar conta", // pt
    "registreren",
    "account aanmaken", // nl
    "регистрация",
    "зарегистрир", // ru
    "注册",
    "登録",
];

pub const RECOVERY: &[&str] = &[
    "forgot",
    "forgotten",
    "reset password",
    "recover",
    "lost password",
    "vergessen",
    "zurücksetzen", // de
    "oublié",
    "réinitialiser", // fr
    "olvidó",
    "olvidaste",
    "recuperar",
    "restablecer", // es
    "dimenticat",
    "recupera", // it
    "esqueceu",
    "esqueci",  // pt
    "vergeten", // nl
    "забыли",
    "восстанов", // ru
];

pub const CONTACT: &[&str] = &[
    "contact",
    "message",
    "comment",
    "feedback",
    "enquiry",
    "inquiry",
    "kontakt",
    "nachricht",
    "kommentar",
    "anfrage", // de
    "contactez",
    "commentaire", // fr
    "contacto",
    "mensaje",
    "comentario", // es
    "contatto",
    "messaggio",
    "commento", // it
    "contato",
    "mensagem",
    "comentário", // pt
    "bericht",
    "reactie",
    "opmerking", // nl
    "сообщение",
    "комментар",
    "отзыв", // ru
];

pub const MAILING_LIST: &[&str] = &[
    "newsletter",
    "subscribe",
    "subscription",
    "mailing list",
    "updates",
    "abonnieren",
    "abonnement", // de
    "abonner",
    "abonnez",
    "lettre d'information", // fr
    "suscrib",
    "suscríb",
    "boletín", // es
    "iscriviti",
    "iscrizione", // it
    "assinar",
    "assine",
    "inscreva", // pt
    "abonneren",
    "nieuwsbrief",
    "inschrijven", // nl
    "подписаться",
    "подписк",
    "рассылк", // ru
];

pub const ORDER: &[&str] = &[
    "add to cart",
    "add to basket",
    "add to bag",
    "cart",
    "basket",
    "buy",
    "checkout",
    "quantity",
    "qty", // en
    "warenkorb",
    "kaufen",
    "bestellen",
    "menge", // de
    "panier",
    "acheter",
    "commander",
    "quantité", // fr
    "carrito",
    "comprar",
    "pedido",
    "cantidad", // es
    "carrello",
    "acquista",
    "quantità", // it
    "carrinho",
    "quantidade", // pt
    "winkelwagen",
    "kopen",
    "aantal", // nl
    "корзин",
    "купить",
    "заказать",
    "количество", // ru
];

pub const POLL: &[&str] = &[
    "poll",
    "vote",
    "survey",
    "umfrage",
    "abstimm",
    "sondage",
    "voter",
    "encuesta",
    "votar",
    "sondaggio",
    "vota",
    "enquete",
    "peiling",
    "stemmen",
    "опрос",
    "голос",
];

pub const DISPLAY: &[&str] = &[
    "sort",
    "order by",
    "per page",
    "view",
    "display",
    "currency",
    "language",
    "sortier",
    "anzeigen",
    "pro seite",
    "trier",
    "afficher",
    "par page",
    "ordenar",
    "mostrar",
    "por página",
    "ordina",
    "visualizza",
    "per pagina",
    "sorteer",
    "weergave",
    "сортир",
    "показать",
];

pub const NAVIGATION: &[&str] = &[
    "go to",
    "jump to",
    "select a",
    "gehe zu",
    "aller à",
    "ir a",
    "vai a",
    "ga naar",
    "перейти",
];

/// Labels of a select that takes the reader elsewhere ("Jump to: a
/// forum"): a menu, not a choice of rows.
pub const JUMP: &[&str] = &[
    "go to",
    "jump to",
    "gehe zu",
    "springe zu",
    "aller à",
    "ir a",
    "vai a",
    "ga naar",
    "перейти",
];

/// Submit texts of a form that does something: sends a message, subscribes
/// or unsubscribes, buys or orders, deletes, signs in or registers.
pub const ACTING_SUBMIT: &[&str] = &[
    // send
    "send",
    "senden",
    "absenden",
    "envoyer",
    "enviar",
    "invia",
    "verzenden",
    "versturen",
    "verstuur",
    "отправ", // subscribe, unsubscribe
    "subscribe",
    "abonnieren",
    "abbestellen",
    "abonner",
    "désabonner",
    "désinscri",
    "suscrib",
    "darse de baja",
    "iscriviti",
    "disiscriviti",
    "assinar",
    "abonneren",
    "afmelden",
    "uitschrijven",
    "подписат",
    "отписат", // buy, order
    "buy",
    "order",
    "kaufen",
    "bestellen",
    "acheter",
    "commander",
    "comprar",
    "pedir",
    "acquista",
    "ordina",
    "encomendar",
    "kopen",
    "купить",
    "заказ",
    "add to cart",
    "checkout",
    // delete
    "delete",
    "remove",
    "löschen",
    "entfernen",
    "supprimer",
    "eliminar",
    "borrar",
    "elimina",
    "cancella",
    "excluir",
    "verwijder",
    "удалить", // sign in
    "sign in",
    "log in",
    "login",
    "signin",
    "anmelden",
    "einloggen",
    "connexion",
    "se connecter",
    "iniciar sesión",
    "entrar",
    "accedi",
    "inloggen",
    "войти", // register
    "register",
    "sign up",
    "signup",
    "registrieren",
    "inscri",
    "registrarse",
    "registrati",
    "cadastr",
    "registreren",
    "регистр",
];

pub const SORT: &[&str] = &[
    "sort",
    "order by",
    "orderby",
    "sortby",
    "ordering",
    "sortier",
    "reihenfolge",
    "trier",
    "tri",
    "ordenar",
    "orden",
    "ordina",
    "classificar",
    "ordenação",
    "sorteer",
    "volgorde",
    "сортир",
    "порядок",
];

/// Choices a sorting select offers.
pub const SORT_CHOICES: &[&str] = &[
    "relevance",
    "newest",
    "oldest",
    "ascending",
    "descending",
    "low to high",
    "high to low",
    "a-z",
    "z-a",
    "relevanz",
    "neueste",
    "aufsteigend",
    "absteigend",
    "pertinence",
    "croissant",
    "décroissant",
    "relevancia",
    "ascendente",
    "descendente",
    "rilevanza",
    "crescente",
    "decrescente",
    "relevantie",
    "oplopend",
    "aflopend",
    "релевант",
    "по возрастанию",
    "по убыванию",
];

pub const PAGE_SIZE: &[&str] = &[
    "per page",
    "perpage",
    "per_page",
    "pagesize",
    "page size",
    "page_size",
    "limit",
    "results",
    "show",
    "items",
    "rows",
    "num",
    "pro seite",
    "anzahl",
    "par page",
    "por página",
    "por pagina",
    "per pagina",
    "на странице",
];

/// The name of a text field that sets the page size (`@pagesize`,
/// `per_page`): narrower than [`PAGE_SIZE`], whose "show" or "results"
/// a search box's label may say.
pub const PAGE_SIZE_NAME: &[&str] = &[
    "pagesize",
    "page size",
    "page_size",
    "perpage",
    "per page",
    "per_page",
];

/// The name of a field that says where the answer starts: the pager's.
pub const OFFSET: &[&str] = &[
    "offset",
    "startwith",
    "start with",
    "start_with",
    "startrow",
];

/// The name of a choice that sets what the answer shows, not which rows:
/// the columns shown, the grouping (`@columns`, `groupby`; a name that
/// is `group` alone too, see [`crate::form::role`]).
pub const DISPLAY_NAME: &[&str] = &["columns", "groupby", "group by", "layout"];

pub const DATE: &[&str] = &[
    "date",
    "year",
    "month",
    "day",
    "datum",
    "jahr",
    "monat",
    "année",
    "mois",
    "fecha",
    "año",
    "data",
    "anno",
    "mese",
    "jaar",
    "maand",
    "дата",
    "год",
    "месяц",
];

/// A place a choice picks (a word of its own, singular or plural).
pub const PLACE: &[&str] = &[
    "country",
    "countries",
    "state",
    "states",
    "region",
    "regions",
    "province",
    "provinces",
    "county",
    "counties",
    "city",
    "cities",
    "town",
    "towns",
    "land",
    "länder",
    "bundesland",
    "stadt",
    "pays",
    "ville",
    "villes",
    "région",
    "régions",
    "département",
    "país",
    "países",
    "ciudad",
    "provincia",
    "región",
    "città",
    "regione",
    "paese",
    "stad",
    "provincie",
    "plaats",
    "страна",
    "регион",
    "область",
    "город",
    "kraj",
    "miasto",
    "województwo",
    "cidade",
];

/// The words of [`PLACE`] that a name may use for a record's status.
pub const PLACE_OR_STATUS: &[&str] = &["state", "states"];

/// A bound of a range.
pub const BOUND: &[&str] = &[
    "from", "to", "since", "until", "min", "max", "minimum", "maximum", "lower", "upper", "von",
    "bis", "depuis", "jusqu", "desde", "hasta", "vanaf", "tot", "от", "до",
];

/// A password named in a button's text ("Reset password").
pub const PASSWORD: &[&str] = &[
    "password",
    "passwort",
    "kennwort",
    "mot de passe",
    "contraseña",
    "senha",
    "wachtwoord",
    "пароль",
];

/// A button that cancels, goes back or declines.
pub const CANCEL: &[&str] = &[
    "cancel",
    "go back",
    "return to",
    "back to",
    "continue shopping",
    "disagree",
    "do not agree",
    "decline",
    "nicht einverstanden",
    "ablehnen",
    "refuser",
    "не согласен",
    "abbrechen",
    "zurück",
    "annuler",
    "retour",
    "cancelar",
    "volver",
    "annulla",
    "indietro",
    "voltar",
    "annuleren",
    "terug",
    "отмена",
    "назад",
];

/// A button that clears the form.
pub const RESET: &[&str] = &[
    "reset",
    "zurücksetzen",
    "réinitialiser",
    "effacer",
    "restablecer",
    "limpiar",
    "сбросить",
    "очистить",
];

/// Hidden inputs that carry a server's state or a request forgery token.
pub const STATE_TOKEN: &[&str] = &[
    "viewstate",
    "eventvalidation",
    "eventtarget",
    "eventargument",
    "requestverificationtoken",
    "csrf",
    "xsrf",
    "authenticity",
    "token",
    "nonce",
    "form build id",
    "form key",
    "formkey",
    "sesskey",
    "javax faces",
];

pub const CAPTCHA: &[&str] = &[
    "captcha",
    "recaptcha",
    "security code",
    "verification code",
    "sicherheitscode",
    "code de sécurité",
    "código de seguridad",
    "codice di sicurezza",
    "código de segurança",
    "beveiligingscode",
    "код с картинки",
    "капча",
];

pub const HONEYPOT: &[&str] = &[
    "honeypot",
    "honey",
    "leave blank",
    "leave this empty",
    "do not fill",
    "nicht ausfüllen",
    "laisser vide",
    "dejar en blanco",
    "lasciare vuoto",
    "deixe em branco",
    "leeg laten",
    "не заполня",
];

pub const USERNAME: &[&str] = &[
    "user",
    "username",
    "login",
    "userid",
    "nick",
    "benutzer",
    "identifiant",
    "utilisateur",
    "usuario",
    "utente",
    "usuário",
    "gebruiker",
    "логин",
    "пользовател",
];

pub const EMAIL: &[&str] = &[
    "email",
    "e mail",
    "mail",
    "courriel",
    "correo",
    "posta elettronica",
    "почта",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_words_match_whole_words_and_stems_match_inside() {
        assert!(says(&normalized("Newsletter abonnieren"), MAILING_LIST));
        assert!(says(&normalized("searchKeywords"), SEARCH));
        assert!(says(&normalized("q buy"), ACTING_SUBMIT));
        assert!(!says(&normalized("buyer guide"), &["buy"]));
        assert!(says(&normalized("Отправить"), ACTING_SUBMIT));
        assert!(!says(&normalized("Suchen"), ACTING_SUBMIT));
        assert_eq!(normalized("userName__x"), "user name x");
    }
}
