import type { Construct } from './constructs.js';

/**
 * The French statements, in the English bank's order (item-bank.ts): the same meaning and construct, said as a
 * French speaker would, not word for word. First-person French makes an adjective or participle agree with the
 * speaker ("je suis attiré·e"), so each statement is built around a verb or an epicene word instead ("… m'attirent",
 * "j'ai de la facilité", "je me sens responsable"); docs/french.md lists the statements that needed a choice.
 */
export const frenchStatements: Record<Construct, readonly [string, string, string, string]> = {
  administrative: [
    "J'aime tenir les registres, les plannings et les dossiers bien en ordre.",
    "J'aime planifier, étape par étape, la façon de mener un travail.",
    "Je remarque quand une procédure demande des efforts inutiles, et je cherche à l'améliorer.",
    "J'éprouve de la satisfaction quand les documents administratifs sont complets et exacts.",
  ],
  adventurous: [
    "Les activités qui comportent un certain risque physique m'attirent.",
    'Je préfère explorer un endroit inconnu plutôt que retourner dans un lieu familier.',
    'Quand la vie devient trop routinière, je ne tiens plus en place.',
    "J'aime les défis qui mettent mon courage à l'épreuve.",
  ],
  creative: [
    "J'ai souvent des idées nouvelles sur la façon dont les choses pourraient être.",
    "J'aime créer des choses qui n'existaient pas avant.",
    "J'aime m'exprimer par l'art, le design, l'écriture ou la musique.",
    'Je cherche des solutions originales plutôt que les solutions habituelles.',
  ],
  educative: [
    "J'aime expliquer les choses jusqu'à ce que les autres les comprennent.",
    "Quand quelqu'un apprend quelque chose grâce à moi, c'est une récompense pour moi.",
    'On vient souvent me voir pour apprendre à faire quelque chose.',
    "J'aime préparer des supports qui aident les autres à apprendre.",
  ],
  entertaining: [
    "J'aime être la personne qui fait rire les autres.",
    "Me produire devant les autres me donne de l'énergie.",
    "J'aime mettre de l'ambiance quand on se réunit.",
    "J'aime raconter des histoires devant un public.",
  ],
  entrepreneurial: [
    'Je repère les occasions de lancer quelque chose de nouveau.',
    "J'aime convaincre les gens de soutenir une idée.",
    "Je suis à l'aise pour prendre un risque financier calculé.",
    "L'idée de créer ma propre entreprise me plaît.",
  ],
  healing: [
    "J'ai envie d'aider les personnes blessées ou malades à se rétablir.",
    "Je remarque qu'une personne souffre avant qu'elle ne le dise.",
    'Prendre soin des autres est pour moi un travail qui a du sens.',
    "Tout ce qui aide à retrouver la santé et le bien-être m'attire.",
  ],
  protective: [
    "J'interviens quand je vois quelqu'un subir une injustice.",
    "Je me sens responsable de la sécurité des personnes qui m'entourent.",
    "Face au danger, je garde mon calme et j'agis.",
    "Les rôles qui consistent à protéger des personnes ou des biens m'attirent.",
  ],
  providing: [
    "J'aime veiller à ce que les gens aient ce qu'il leur faut.",
    'Produire des choses sur lesquelles les autres comptent fait ma fierté.',
    "J'aime fournir aux autres des repas, des produits ou des services.",
    'Je me sens bien quand mon travail soutient un foyer ou une communauté.',
  ],
  bodily_fine_motor: [
    "J'ai de la facilité avec les tâches qui demandent des gestes précis de la main.",
    "J'assemble facilement de petites pièces.",
    "J'aime les travaux manuels comme la couture, le modélisme ou la réparation de petits appareils.",
    'Mes mains restent sûres quand je fais un travail minutieux.',
  ],
  bodily_gross_motor: [
    "J'apprends vite un nouveau sport ou un nouveau geste physique.",
    "J'aime bouger pendant que je réfléchis.",
    "J'ai un bon équilibre et une bonne coordination.",
    "J'aime les activités qui font travailler tout mon corps.",
  ],
  interpersonal: [
    'Je devine ce que ressentent les autres à de petits signes.',
    "Je m'entends bien avec des gens très différents.",
    'Les gens me demandent de les aider à régler leurs désaccords.',
    'Je travaille bien en équipe.',
  ],
  intrapersonal: [
    'Je connais bien mes points forts et mes points faibles.',
    'Je prends le temps de réfléchir à mes objectifs et à mes valeurs.',
    'Je comprends pourquoi je réagis comme je le fais.',
    "Je sais me motiver sans que les autres m'encouragent.",
  ],
  linguistic: [
    "Je m'exprime clairement par écrit.",
    "J'aime les jeux de lettres, les mots croisés ou découvrir de nouveaux mots.",
    "J'aime lire pour le plaisir de lire.",
    'Je sais expliquer des idées complexes avec des mots simples.',
  ],
  logical: [
    "J'aime résoudre des problèmes par le calcul ou la logique.",
    'Derrière les événements, je cherche les régularités et les causes.',
    "J'aime mettre des idées à l'épreuve pas à pas.",
    'Je repère vite une faille dans un raisonnement.',
  ],
  musical: [
    'Je garde facilement le rythme.',
    'Je remarque quand une note est fausse.',
    "Quand j'entends une mélodie une ou deux fois, elle me reste en tête.",
    "J'aime jouer de la musique, chanter ou composer.",
  ],
  naturalistic: [
    'Je remarque les détails des plantes, des animaux et de la météo.',
    "J'aime passer du temps dans la nature.",
    "Je sais distinguer différentes espèces de plantes ou d'animaux.",
    "Je me soucie de la façon dont l'environnement naturel évolue.",
  ],
  visual_graphic: [
    "J'aime dessiner, faire des croquis ou peindre.",
    "J'ai l'œil pour les couleurs et la mise en page.",
    "Je pense en images plus qu'en mots.",
    "J'aime concevoir des affiches, des schémas ou d'autres visuels.",
  ],
  visual_spatial: [
    "Je m'oriente facilement dans un lieu inconnu.",
    "J'arrive à imaginer un objet vu sous un autre angle.",
    "J'ai de la facilité à lire les cartes et les plans.",
    "J'évalue bien les distances et les tailles.",
  ],
};

/** The answer scale's words, 1..5: what the statement is to the person, so no adjective agrees with them. */
export const frenchScaleLabels = [
  'Ne me ressemble pas du tout',
  'Me ressemble un peu',
  'Me ressemble assez',
  'Me ressemble beaucoup',
  'Me ressemble tout à fait',
] as const;
